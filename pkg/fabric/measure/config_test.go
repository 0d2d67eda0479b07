//go:build cgo

package measure

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"

	"github.com/rdma-bench/rdma-bench/pkg/fabric"
	"github.com/rdma-bench/rdma-bench/pkg/point"
)

// config is a valid configuration of tcp_lat and tcp_bw.
func config() *Config {
	return &Config{Workloads: []string{"tcp_lat", "tcp_bw"}, Pattern: fabric.PatternPairs, ThresholdPct: 20,
		OutlierPairs: fabric.DefaultRecheckMaxPairs, OutlierTime: fabric.DefaultRecheckTime, PairTimeout: time.Minute, RendezvousTimeout: time.Minute,
		Coordinator: "node-0:18600", Output: fabric.Output{Format: "table"}}
}

func TestWorkloads(t *testing.T) {
	if got, err := Workloads([]string{"tcp_lat", "write_bw"}); err != nil || strings.Join(got, ",") != "tcp_lat,write_bw" {
		t.Errorf("got %q, %v", got, err)
	}
	for args, want := range map[string]string{
		"":                "name the workloads to measure on every pair: ",
		"tcp_lat tcp_lat": "workload tcp_lat named twice: name each once",
		"nope":            "nope",
	} {
		if _, err := Workloads(strings.Fields(args)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", args, err, want)
		}
	}
}

func TestConfigCheck(t *testing.T) {
	if err := config().Check(); err != nil {
		t.Fatal(err)
	}
	for want, set := range map[string]func(c *Config){
		`--pattern "star": want `:                func(c *Config) { c.Pattern = "star" },
		"--threshold 0: want a percentage":       func(c *Config) { c.ThresholdPct = 0 },
		"--outlier-pairs 6: want 12 to 1000":     func(c *Config) { c.OutlierPairs = 6 },
		"--pair-timeout 500ms: want at least 1s": func(c *Config) { c.PairTimeout = 500 * time.Millisecond },
		"--rendezvous-timeout 0s: want":          func(c *Config) { c.RendezvousTimeout = 0 },
		"--outlier-time 100ms: want at least 1s": func(c *Config) { c.OutlierTime = 100 * time.Millisecond },
		"--pair-time -1s: want a positive":       func(c *Config) { c.PairTime = -time.Second },
		`-o "csv": want table or json`:           func(c *Config) { c.Output.Format = "csv" },
		`--coordinator "node-0": want HOST:PORT`: func(c *Config) { c.Coordinator = "node-0" },
		`--coordinator "n:0": port "0": want`:    func(c *Config) { c.Coordinator = "n:0" },
	} {
		c := config()
		set(c)
		if err := c.Check(); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("got %v, want %q", err, want)
		}
	}
}

func TestCheckFlagsApply(t *testing.T) {
	if err := CheckFlagsApply([]string{"tcp_lat", "write_lat"}, []string{"size", "ib-dev"}); err != nil {
		t.Error(err)
	}
	if err := CheckFlagsApply([]string{"tcp_lat", "tcp_bw"}, []string{"port", "tx-depth"}); err == nil || err.Error() != "--tx-depth applies to none of tcp_lat, tcp_bw" {
		t.Errorf("an RDMA flag for TCP workloads: %v", err)
	}
}

// TestParams: what every rank must share, each workload's parameters
// under its name.
func TestParams(t *testing.T) {
	c := config()
	p, err := c.Params(c.Specs(point.NewSpec("")))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"workloads": "tcp_lat,tcp_bw", "pattern": "pairs", "pair_timeout": "1m0s",
		"threshold": "20%", "outlier_pairs": "24", "figures_only": "false"} {
		if p[k] != v {
			t.Errorf("%s = %q, want %q", k, p[k], v)
		}
	}
	if _, ok := p["tcp_bw.size"]; !ok {
		t.Errorf("no tcp_bw.size in %v", p)
	}
	if _, ok := p["workload"]; ok {
		t.Errorf("workload in %v", p)
	}
}

func TestMatrixMetricsAndDrop(t *testing.T) {
	c := config()
	if got := strings.Join(c.MatrixMetrics(), " "); got != "tcp_lat.p50_us tcp_bw.bw_gbps" {
		t.Errorf("matrix metrics %q", got)
	}
	if c.DropResults(MaxFullResultRanks) || !c.DropResults(MaxFullResultRanks+1) {
		t.Error("full results beyond 64 ranks, or none up to")
	}
	c.FiguresOnly = true
	if !c.DropResults(2) {
		t.Error("--figures-only kept the full results")
	}
}

func TestCheckLaunch(t *testing.T) {
	c := config()
	c.Coordinator = ""
	w := fabric.World{Rank: 1, Size: 3, Launcher: "flags"}
	none := func(string) string { return "" }
	if err := c.CheckLaunch(w, none); err == nil || !strings.HasPrefix(err.Error(), "no way for the ranks to find rank 0 (this is rank 1 of 3, flags)") {
		t.Errorf("no rendezvous: %v", err)
	}
	if err := c.CheckLaunch(w, func(string) string { return "3" }); err != nil {
		t.Errorf("under PMI: %v", err)
	}
	c.Dir = t.TempDir() + "/missing"
	if err := c.CheckLaunch(w, none); err == nil || !strings.HasSuffix(err.Error(), "want an existing directory every host shares, one per run") {
		t.Errorf("missing --rendezvous-dir: %v", err)
	}
}

// TestWritePlan: a size from the flags is checked, none is bad input.
func TestWritePlan(t *testing.T) {
	c := config()
	var b bytes.Buffer
	c.PlanSetup, c.PlanSync = fabric.PlanSetup, fabric.DefaultPlanSync
	spec := point.NewSpec("")
	spec.Duration = 2 * time.Second
	if err := c.WritePlan(&b, func(string) string { return "" }, fabric.Flags{Size: 4, SizeSet: true}, spec); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "per pair: 6s (2 workloads x (-D 2s + 1s of set-up); give --pair-time to change)\npattern pairs, 4 hosts: 6 rounds, 12 pairs (at most 2 a round), 6 x (6s + 400µs of synchronisation) = 36.0024s") {
		t.Errorf("plan:\n%s", b.String())
	}
	for _, fl := range []fabric.Flags{{Size: 1, SizeSet: true}, {}} {
		err := c.WritePlan(&b, func(string) string { return "" }, fl, spec)
		if !inputerr.Is(err) {
			t.Errorf("%+v: %v, want bad input", fl, err)
		}
	}
}

// TestMeasureBadAddress: a peer whose registered address cannot be
// dialled fails its pair before anything runs.
func TestMeasureBadAddress(t *testing.T) {
	m := &PairMeasurer{}
	for addr, want := range map[string]string{"host": "want HOST:PORT", "host:x": "want a numeric port"} {
		_, err := m.Measure(context.Background(), fabric.Member{Rank: 1, Hostname: "h", Addr: addr})
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%q: %v, want %q", addr, err, want)
		}
	}
}
