package workloads

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// matrix is every workload over every transport it supports, in both
// completion modes, with the variants that change the engine's path.
func matrix() []Config {
	var out []Config
	for _, w := range table {
		for _, tr := range w.Transports {
			for _, ev := range []bool{false, true} {
				c := Defaults()
				c.Workload, c.Transport, c.Events, c.Validate = w.Name, tr, ev, true
				c.Iterations, c.Warmup = 40, 5
				c.Size = 1024
				if w.Latency() {
					c.Size = 64
				}
				if w.Op == OpAtomic {
					c.Size = 8
				}
				if !w.Latency() {
					c.TxDepth, c.CQMod = 16, 4
				}
				out = append(out, c)
				if w.Op == OpAtomic && !ev {
					cs := c
					cs.Atomic = "cswap"
					out = append(out, cs)
				}
				if !w.Latency() && w.Op != OpAtomic && !ev {
					b := c
					b.Bidir = true
					out = append(out, b)
				}
				if w.Op == OpWrite && !ev {
					im := c
					im.Imm = true
					out = append(out, im)
				}
			}
		}
	}
	return out
}

func name(c Config) string {
	s := fmt.Sprintf("%s/%s/%s", c.Workload, c.Transport, c.Completion())
	if c.Bidir {
		s += "/bidir"
	}
	if c.Imm {
		s += "/imm"
	}
	if c.Atomic != "" {
		s += "/" + c.Atomic
	}
	return s
}

// runChecked runs c in loopback (bounded to a minute) and checks the result.
func runChecked(t *testing.T, c Config) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := Loopback(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, c, res)
}

func TestLoopbackMatrix(t *testing.T) {
	dev := testenv.Device(t)
	for _, c := range matrix() {
		c.Device = dev
		t.Run(name(c), func(t *testing.T) { runChecked(t, c) })
	}
}

func checkResult(t *testing.T, c Config, res *report.Result) {
	t.Helper()
	w, _ := Lookup(c.Workload)
	if res.Workload != c.Workload || res.Transport != c.Transport || res.Completion != c.Completion() {
		t.Errorf("result params %s/%s/%s", res.Workload, res.Transport, res.Completion)
	}
	if res.CPU.Local == nil || res.CPU.Remote == nil {
		t.Errorf("cpu figures missing: local %v remote %v", res.CPU.Local, res.CPU.Remote)
	}
	if w.Latency() {
		if len(res.SamplesNS) != c.Iterations {
			t.Fatalf("%d latency samples, want %d", len(res.SamplesNS), c.Iterations)
		}
		for i, s := range res.SamplesNS {
			if s <= 0 {
				t.Fatalf("sample %d is %d ns", i, s)
			}
		}
		return
	}
	want := uint64(c.Iterations * c.QPs)
	if c.Bidir {
		want *= 2
	}
	if res.Ops != want || res.Bytes != want*uint64(c.Size) {
		t.Errorf("ops %d bytes %d, want %d and %d", res.Ops, res.Bytes, want, want*uint64(c.Size))
	}
	if res.ElapsedNS <= 0 {
		t.Errorf("elapsed %d ns", res.ElapsedNS)
	}
}

// TestLoopbackRDMACM connects the QPs with rdma_cm instead of by hand.
func TestLoopbackRDMACM(t *testing.T) {
	dev := testenv.Device(t)
	if gid, err := deviceGID(dev); err != nil {
		t.Fatal(err)
	} else if ip, ok := gid.IPv4(); !ok || strings.HasPrefix(ip, "127.") {
		t.Skipf("rdma_cm cannot route to %s's GID %s (a loopback netdev): put rxe on a real or dummy netdev (RDMA_BENCH_VM_NETDEV=dummy0)", dev, gid)
	}
	for _, mod := range []func(*Config){
		func(c *Config) { c.Workload = "write_lat" },
		func(c *Config) { c.Workload = "read_lat" },
		func(c *Config) { c.Workload, c.Transport, c.Events = "send_lat", "UC", true },
		func(c *Config) { c.Workload, c.QPs, c.Size, c.TxDepth, c.CQMod = "send_bw", 2, 4096, 16, 4 },
		func(c *Config) { c.Workload, c.Size, c.TxDepth, c.CQMod = "atomic_bw", 8, 16, 4 },
	} {
		c := Defaults()
		c.Device, c.RDMACM, c.Validate, c.Iterations, c.Warmup = dev, true, true, 40, 5
		mod(&c)
		t.Run(name(c), func(t *testing.T) { runChecked(t, c) })
	}
}

func deviceGID(dev string) (verbs.GID, error) {
	table, err := verbs.ReadGIDTable(verbs.SysfsRoot, dev, 1)
	if err != nil {
		return verbs.GID{}, err
	}
	e, err := verbs.SelectGID(table, -1)
	return e.GID, err
}

// TestReportIntervalAllThreads: --report-interval's live figures count
// every worker thread, so the last cumulative tick of a two-thread run is
// close to the final operation count, not half of it.
func TestReportIntervalAllThreads(t *testing.T) {
	dev := testenv.Device(t)
	var progress strings.Builder
	c := Defaults()
	c.Device, c.Workload, c.Size, c.Threads = dev, "write_bw", 4096, 2
	c.Duration, c.ReportInterval, c.Progress = 3*time.Second, 500*time.Millisecond, &progress
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := Loopback(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(progress.String(), "\n") {
		if strings.Contains(l, "cumulative:") {
			lines = append(lines, l)
		}
	}
	if len(lines) < 3 {
		t.Fatalf("want a tick every 0.5 s of a 3 s run, got:\n%s", progress.String())
	}
	// "[ 2.5s] interval: ... | cumulative: X Gb/s Y Mpps"
	var secs, gbps, mpps float64
	last := lines[len(lines)-1]
	if _, err := fmt.Sscanf(last[strings.Index(last, "[")+1:], "%fs]", &secs); err != nil {
		t.Fatalf("tick %q: %v", last, err)
	}
	if _, err := fmt.Sscanf(last[strings.Index(last, "cumulative:")+len("cumulative:"):], "%f Gb/s %f Mpps", &gbps, &mpps); err != nil {
		t.Fatalf("tick %q: %v", last, err)
	}
	ticked := mpps * 1e6 * secs
	final := float64(res.Ops) * secs / (float64(res.ElapsedNS) / 1e9)
	t.Logf("last tick: %s; %.0f ops by then, %d ops in %.2f s at the end", last, ticked, res.Ops, float64(res.ElapsedNS)/1e9)
	if ticked < 0.7*final || ticked > 1.3*final {
		t.Fatalf("live figures count %.0f ops at %.1f s, the run's rate gives %.0f: a thread is missing", ticked, secs, final)
	}
}
