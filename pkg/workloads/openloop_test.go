package workloads

import (
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// TestOpenLoop runs every latency workload's open loop at a rate far below
// what soft-RoCE sustains: every operation is issued and comes back, the
// schedule is kept (the run's rate is the offered one), each operation's
// latency is its lag plus its service time, and both have a histogram of
// every operation.
func TestOpenLoop(t *testing.T) {
	l := DefaultLocal()
	l.Device = testenv.Device(t)
	for _, mod := range []func(*point.Spec){
		func(s *point.Spec) { s.Workload = "write_lat" },
		func(s *point.Spec) { s.Workload, s.Imm = "write_lat", true },
		func(s *point.Spec) { s.Workload = "send_lat" },
		func(s *point.Spec) { s.Workload, s.Transport = "send_lat", "UD" },
		func(s *point.Spec) { s.Workload = "read_lat" },
		func(s *point.Spec) { s.Workload = "atomic_lat" },
	} {
		s := point.NewSpec("")
		s.Rate, s.Iterations, s.Warmup = 500, 400, 20
		mod(&s)
		t.Run(name(s), func(t *testing.T) {
			res := loopback(t, s, l)
			o := res.Open
			if res.Status != report.StatusOK || o == nil {
				t.Fatalf("status %s (%s), open loop %v", res.Status, res.Reason, o)
			}
			if o.RateOPS != 500 || o.Issued != 400 || o.Behind != 0 || res.Ops != 400 || len(res.SamplesNS) != 400 {
				t.Fatalf("rate %d issued %d behind %d ops %d samples %d; want 500, 400, 0, 400, 400",
					o.RateOPS, o.Issued, o.Behind, res.Ops, len(res.SamplesNS))
			}
			if o.Service.Count() != 400 || o.Lag.Count() != 400 {
				t.Fatalf("service %d and lag %d values, want 400 each", o.Service.Count(), o.Lag.Count())
			}
			// The timed span runs from the first operation's due time to
			// the last one's completion: 399 intervals of 2 ms, plus the
			// last one's latency; so 400 operations in it are a little
			// over 500 a second.
			got, _ := res.AchievedOPS()
			if got > 500*400.0/399*1.001 || got < 500*0.9 {
				t.Errorf("achieved %.1f ops/s at 500 offered", got)
			}
			// Latency is lag plus service, operation by operation: so are
			// their sums.
			var sum int64
			for _, v := range res.SamplesNS {
				sum += v
			}
			want := o.Service.Moments().MeanNS*400 + o.Lag.Moments().MeanNS*400
			if d := float64(sum) - want; d > 400 || d < -400 {
				t.Errorf("latencies sum to %d ns, service and lag to %.0f", sum, want)
			}
			t.Logf("achieved %.1f ops/s; latency p50 %.1f us; service mean %.1f us; lag mean %.1f max %.1f us",
				got, report.Summarize(res).Latency.P50US(), o.Service.Moments().MeanNS/1e3, o.Lag.Moments().MeanNS/1e3, float64(o.Lag.Moments().MaxNS)/1e3)
		})
	}
}

// TestOpenLoopOverload offers far more than soft-RoCE sustains, in
// duration mode: the run ends on time, reports the operations the
// schedule could not issue, and the latency from the due time grows with
// the run (the queue the closed loop would hide).
func TestOpenLoopOverload(t *testing.T) {
	l := DefaultLocal()
	l.Device = testenv.Device(t)
	s := point.NewSpec("write_lat")
	s.Rate, s.Duration = 2_000_000, 500*time.Millisecond
	start := time.Now()
	res := loopback(t, s, l)
	o := res.Open
	if res.Status != report.StatusOK || o == nil {
		t.Fatalf("status %s (%s), open loop %v", res.Status, res.Reason, o)
	}
	got, _ := res.AchievedOPS()
	lat, svc := report.Summarize(res).Latency, o.Service.Stats()
	t.Logf("in %v: issued %d, behind %d, achieved %.0f ops/s; latency p99 %.1f us, service p99 %.1f us",
		time.Since(start), o.Issued, o.Behind, got, lat.P99US(), svc.P99US())
	if o.Behind == 0 || got >= 2_000_000*report.KneeAchieved {
		t.Errorf("an overloaded schedule reports %d operations behind, %.0f ops/s achieved", o.Behind, got)
	}
	if uint64(res.Ops) != o.Issued {
		t.Errorf("%d operations completed of %d issued", res.Ops, o.Issued)
	}
	if lat.P99NS <= svc.P99NS || lat.MaxNS < 1e8 {
		t.Errorf("latency p99 %.0f ns, max %.0f ns; service p99 %.0f ns: the lag of an overloaded schedule is missing", lat.P99NS, lat.MaxNS, svc.P99NS)
	}
}

// TestRateLimit: --rate on a bandwidth workload paces the stream, shared
// among the threads: the message rate is the rate asked for, not what the
// device could do.
func TestRateLimit(t *testing.T) {
	l := DefaultLocal()
	l.Device = testenv.Device(t)
	for _, mod := range []func(*point.Spec){
		func(s *point.Spec) { s.Workload = "write_bw" },
		func(s *point.Spec) { s.Workload, s.Threads, s.QPs = "send_bw", 2, 2 },
	} {
		s := point.NewSpec("")
		s.Rate, s.Iterations, s.Size = 2000, 1000, 4096
		mod(&s)
		t.Run(name(s), func(t *testing.T) {
			res := loopback(t, s, l)
			b := report.Summarize(res).Bandwidth
			if res.Status != report.StatusOK || b == nil {
				t.Fatalf("status %s (%s)", res.Status, res.Reason)
			}
			got := b.MsgRateMpps * 1e6
			t.Logf("%d operations at %.1f ops/s, limit 2000", res.Ops, got)
			// The span runs from the first post to the last completion:
			// n operations are n-1 intervals.
			if got > 2000*float64(res.Ops)/float64(res.Ops-1)*1.01 || got < 2000*0.9 {
				t.Errorf("%.1f ops/s under a limit of 2000", got)
			}
		})
	}
}
