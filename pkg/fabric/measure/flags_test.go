//go:build cgo

package measure

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
)

// parsed registers the flags on a new set and parses args.
func parsed(t *testing.T, args ...string) *Flags {
	t.Helper()
	fs := pflag.NewFlagSet("fabric", pflag.ContinueOnError)
	var f Flags
	f.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return &f
}

func TestFlagsRegisterDefaults(t *testing.T) {
	f := parsed(t)
	c := f.Config
	if c.Pattern != fabric.PatternPairs || c.ThresholdPct != fabric.DefaultThresholdPct || c.OutlierPairs != fabric.DefaultRecheckMaxPairs ||
		c.PairTimeout != fabric.DefaultPairTimeout || c.RendezvousTimeout != fabric.DefaultRendezvousTimeout || c.PairTime != 0 ||
		c.Output.Format != "table" || c.Output.ResultsDir != "results" || c.Output.Save || c.PlotDir != "" || c.FiguresOnly {
		t.Errorf("defaults: %+v", c)
	}
	if f.Plan || f.Rank != 0 || f.Size != 0 {
		t.Errorf("plan %v, rank %d, size %d", f.Plan, f.Rank, f.Size)
	}
	if p := f.fs.Lookup("port"); p.DefValue != "0" || !strings.HasPrefix(p.Usage, "TCP port of this rank's") {
		t.Errorf("--port: default %q, usage %q", p.DefValue, p.Usage)
	}
	for _, n := range []string{"all", "sweep-min", "sweep-max", "report-interval"} {
		if !f.fs.Lookup(n).Hidden {
			t.Errorf("--%s is not hidden", n)
		}
	}
	if w := f.World(); w.RankSet || w.SizeSet {
		t.Errorf("world flags set without being given: %+v", w)
	}
}

func TestFlagsCheck(t *testing.T) {
	f := parsed(t, "tcp_lat", "tcp_bw", "--rank", "1", "--world-size", "4", "--pair-timeout", "90s", "--plan")
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.Config.Workloads, ",") != "tcp_lat,tcp_bw" || f.Config.PairTimeout != 90*time.Second || !f.Plan {
		t.Errorf("got %+v", f.Config)
	}
	if w := f.World(); w != (fabric.Flags{Rank: 1, Size: 4, RankSet: true, SizeSet: true}) {
		t.Errorf("world flags %+v", w)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"tcp_lat", "-a"}, "--all does not apply to fabric: give one size with -s"},
		{[]string{"tcp_lat", "--report-interval", "1s"}, "--report-interval does not apply to fabric"},
		{nil, "name the workloads to measure on every pair"},
		{[]string{"tcp_lat", "--ib-dev", "rxe0"}, "a TCP baseline uses no RDMA device"},
		{[]string{"tcp_lat", "--pattern", "nope"}, `--pattern "nope": want `},
		{[]string{"tcp_lat", "--advertise", "a b"}, `--advertise: host "a b"`},
	} {
		err := parsed(t, tt.args...).Check()
		if err == nil || !strings.Contains(err.Error(), tt.want) || !inputerr.Is(err) {
			t.Errorf("%q: %v (bad input %v), want %q", tt.args, err, inputerr.Is(err), tt.want)
		}
	}
}

func TestFlagsLaunch(t *testing.T) {
	f := parsed(t, "tcp_lat", "--rank", "1", "--world-size", "2")
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	getenv := func(string) string { return "" }
	if _, _, _, err := f.Launch(getenv, nil); err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), "no way for the ranks to find rank 0") {
		t.Errorf("without a coordinator: %v", err)
	}
	f.Config.Coordinator = "node-0:18600"
	world, specs, params, err := f.Launch(getenv, nil)
	if err != nil {
		t.Fatal(err)
	}
	if world.Rank != 1 || world.Size != 2 || len(specs) != 1 || specs[0].Workload != "tcp_lat" || params["workloads"] != "tcp_lat" {
		t.Errorf("world %+v, specs %+v, params %v", world, specs, params)
	}
}

// TestFlagsProbe: --probe makes each point one iteration without warm-up
// and the pair timeout the probe's (unless given); what a probe cannot do
// is refused as bad input, naming the flag.
func TestFlagsProbe(t *testing.T) {
	f := parsed(t, "write_lat", "write_bw", "--probe")
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	if s := f.Bench.Spec; s.Iterations != 1 || s.Duration != 0 || s.Warmup != 0 || f.Config.PairTimeout != DefaultProbePairTimeout || !f.Config.Probe {
		t.Errorf("spec %+v, pair timeout %s", s, f.Config.PairTimeout)
	}
	if f = parsed(t, "write_lat", "--probe", "--pair-timeout", "3s"); f.Check() != nil || f.Config.PairTimeout != 3*time.Second {
		t.Errorf("--pair-timeout 3s: %s", f.Config.PairTimeout)
	}
	for _, extra := range [][]string{{"-n", "5"}, {"-D", "2"}, {"--warmup", "3"}, {"--outlier-pairs", "12"}, {"--outlier-time", "1m"},
		{"--threshold", "10"}, {"--plot", "p"}, {"--plan"}} {
		err := parsed(t, append([]string{"write_lat", "--probe"}, extra...)...).Check()
		if err == nil || !inputerr.Is(err) ||
			!strings.Contains(err.Error(), "does not apply to --probe: a probe makes one round trip a pair and compares nothing") {
			t.Errorf("--probe %s: %v", strings.Join(extra, " "), err)
		}
	}
}
