package workloads

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs/verbstest"
)

// matrix is every workload, RDMA and TCP, over every transport it
// supports, in both completion modes, with the variants that change the
// engine's path.
func matrix() []point.Spec {
	var out []point.Spec
	for _, w := range catalog.All() {
		for _, tr := range w.Transports {
			for _, ev := range []bool{false, true} {
				s := point.NewSpec(w.Name)
				s.Transport, s.Events, s.Validate = tr, ev, w.Family == catalog.RDMA
				s.Iterations, s.Warmup = 40, 5
				s.Size = 1024
				if w.Latency() {
					s.Size = 64
				}
				if w.Op == catalog.OpAtomic {
					s.Size = 8
				}
				if w.Family == catalog.RDMA && !w.Latency() {
					s.TxDepth, s.CQMod = 16, 4
				}
				out = append(out, s)
				if w.Op == catalog.OpAtomic && !ev {
					cs := s
					cs.Atomic = "cswap"
					out = append(out, cs)
				}
				if applies("bidir", w) && !ev {
					b := s
					b.Bidir = true
					out = append(out, b)
				}
				if applies("imm", w) && !ev {
					im := s
					im.Imm = true
					out = append(out, im)
				}
			}
		}
	}
	return out
}

func name(s point.Spec) string {
	n := fmt.Sprintf("%s/%s/%s", s.Workload, s.Transport, s.Completion())
	if s.Bidir {
		n += "/bidir"
	}
	if s.Imm {
		n += "/imm"
	}
	if s.Atomic != "" {
		n += "/" + s.Atomic
	}
	return n
}

// loopback resolves s and runs it in loopback, bounded to a minute.
func loopback(t *testing.T, s point.Spec, l Local) *report.Result {
	t.Helper()
	r := resolved(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := Loopback(ctx, r, l)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func resolved(t *testing.T, s point.Spec) point.Resolved {
	t.Helper()
	r, _, err := Resolve(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLoopbackMatrix(t *testing.T) {
	l := DefaultLocal()
	l.Device = testenv.Device(t)
	for _, s := range matrix() {
		t.Run(name(s), func(t *testing.T) { checkResult(t, s, loopback(t, s, l)) })
	}
}

func checkResult(t *testing.T, s point.Spec, res *report.Result) {
	t.Helper()
	s = resolved(t, s).Spec
	w, _ := catalog.Lookup(s.Workload)
	if res.Workload != s.Workload || res.Transport != s.Transport || res.Completion != s.Completion() {
		t.Errorf("result params %s/%s/%s", res.Workload, res.Transport, res.Completion)
	}
	if res.Status != report.StatusOK || res.Clock == "" || res.ClockSampleNS <= 0 {
		t.Errorf("status %q (%s), clock %q %v ns", res.Status, res.Reason, res.Clock, res.ClockSampleNS)
	}
	if s.Validate && res.Validation != "passed" {
		t.Errorf("validation %q", res.Validation)
	}
	// One process: the local figure covers both sides, measured over the
	// timed part only.
	if u := res.CPU.Local; u == nil || res.CPU.Remote != nil || !res.CPU.OneProcess {
		t.Errorf("cpu figures: local %v remote %v one process %t", res.CPU.Local, res.CPU.Remote, res.CPU.OneProcess)
	}
	if res.ElapsedNS <= 0 {
		t.Errorf("elapsed %d ns", res.ElapsedNS)
	}
	if w.Latency() {
		if len(res.SamplesNS) != s.Iterations || res.Ops != uint64(s.Iterations) {
			t.Fatalf("%d latency samples, %d ops, want %d", len(res.SamplesNS), res.Ops, s.Iterations)
		}
		for i, v := range res.SamplesNS {
			if v <= 0 {
				t.Fatalf("sample %d is %d ns", i, v)
			}
		}
		return
	}
	want := uint64(s.Iterations * max(s.QPs, 1))
	if s.Bidir {
		want *= 2
	}
	if res.Ops != want || res.Bytes != want*uint64(s.Size) {
		t.Errorf("ops %d bytes %d, want %d and %d", res.Ops, res.Bytes, want, want*uint64(s.Size))
	}
}

// TestLoopbackRDMACM connects the QPs with rdma_cm instead of by hand.
func TestLoopbackRDMACM(t *testing.T) {
	l := DefaultLocal()
	l.Device, _ = verbstest.CMTarget(t)
	for _, mod := range []func(*point.Spec){
		func(s *point.Spec) { s.Workload = "write_lat" },
		func(s *point.Spec) { s.Workload = "read_lat" },
		func(s *point.Spec) { s.Workload, s.Transport, s.Events = "send_lat", "UC", true },
		func(s *point.Spec) { s.Workload, s.QPs, s.Size, s.TxDepth, s.CQMod = "send_bw", 2, 4096, 16, 4 },
		func(s *point.Spec) { s.Workload, s.TxDepth, s.CQMod = "atomic_bw", 16, 4 },
	} {
		s := point.NewSpec("")
		s.RDMACM, s.Validate, s.Iterations, s.Warmup = true, true, 40, 5
		mod(&s)
		s = resolved(t, s).Spec
		t.Run(name(s), func(t *testing.T) { checkResult(t, s, loopback(t, s, l)) })
	}
}

// TestDurationCountsEveryOperation: in duration mode a bandwidth run counts
// every operation it completed, the ones after the last signalled
// completion too, so that large messages and short runs give a figure (at
// 1 MiB, -D 0.3 fits fewer operations than one cq moderation period).
func TestDurationCountsEveryOperation(t *testing.T) {
	l := DefaultLocal()
	l.Device = testenv.Device(t)
	for _, w := range []string{"write_bw", "send_bw", "read_bw", "tcp_bw"} {
		t.Run(w, func(t *testing.T) {
			s := point.NewSpec(w)
			s.Size, s.Duration = 1<<20, 300*time.Millisecond
			res := loopback(t, s, l)
			el := time.Duration(res.ElapsedNS)
			t.Logf("%d ops in %v", res.Ops, el)
			if res.Status != report.StatusOK || res.Ops == 0 || res.Bytes != res.Ops<<20 {
				t.Fatalf("status %s (%s), %d ops, %d bytes", res.Status, res.Reason, res.Ops, res.Bytes)
			}
			if el < 300*time.Millisecond || el > 5*time.Second {
				t.Errorf("elapsed %v for a 0.3 s run", el)
			}
		})
	}
}

// TestCPUOverTheTimedPart: the client's CPU window is its timed part, not
// the warm-up or the exchange with the peer, so its wall time matches the
// timed span and CPU per operation does not depend on the count.
func TestCPUOverTheTimedPart(t *testing.T) {
	l := DefaultLocal()
	l.Device = testenv.Device(t)
	for _, w := range []string{"write_lat", "tcp_lat", "write_bw", "tcp_bw"} {
		t.Run(w, func(t *testing.T) {
			s := point.NewSpec(w)
			s.Iterations, s.Warmup, s.Size = 300, 100, 4096
			res := loopback(t, s, l)
			u := res.CPU.Local
			span := float64(res.ElapsedNS) / 1e9
			t.Logf("cpu window %.4f s, timed span %.4f s, cpu %.4f s", u.WallS, span, u.UserS+u.SysS)
			// The window opens before the first timed timestamp and closes
			// after the last: a little longer than the span, never shorter
			// by more than a clock read, nor much longer.
			if u.WallS < span*0.98 || u.WallS > span*1.1+0.005 {
				t.Errorf("cpu window %.4f s for a timed span of %.4f s", u.WallS, span)
			}
			if (u.UserS + u.SysS) > u.WallS*float64(u.Cores)*1.05+0.01 {
				t.Errorf("cpu %.4f s in a window of %.4f s on %d cores", (u.UserS + u.SysS), u.WallS, u.Cores)
			}
		})
	}
}

// TestReportIntervalAllThreads: --report-interval's live figures count
// every worker thread, so the last cumulative tick of a two-thread run is
// close to the final operation count, not half of it.
func TestReportIntervalAllThreads(t *testing.T) {
	var progress strings.Builder
	l := DefaultLocal()
	l.Device = testenv.Device(t)
	l.ReportInterval, l.Progress = 500*time.Millisecond, &progress
	s := point.NewSpec("write_bw")
	s.Size, s.Threads, s.QPs, s.Duration = 4096, 2, 2, 3*time.Second
	res := loopback(t, s, l)
	var lines []string
	for _, ln := range strings.Split(progress.String(), "\n") {
		if strings.Contains(ln, "cumulative:") {
			lines = append(lines, ln)
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
	if math.Abs(ticked-final) > 0.3*final {
		t.Fatalf("live figures count %.0f ops at %.1f s, the run's rate gives %.0f: a thread is missing", ticked, secs, final)
	}
}

// applies reports whether the shared parameter key applies to w.
func applies(key string, w catalog.Workload) bool {
	for _, p := range point.Params() {
		if p.Key == key {
			return p.Applies(w)
		}
	}
	return false
}
