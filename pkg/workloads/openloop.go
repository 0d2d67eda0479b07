package workloads

import (
	"errors"

	"github.com/rdma-bench/rdma-bench/pkg/engine"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// openLoop is a latency loop that can also issue operations on a
// schedule (--rate): the RDMA engine.
type openLoop interface {
	pingLoop
	StartOpen()
	PingOpen(n uint64, deadlineNS int64, record bool) (engine.Status, error)
	OpenSamples() (pairs []int64, first uint64)
	Due(i uint64) int64
	DueBy(t int64) uint64
	Issued() uint64
}

// openResult is what an open loop measured beside its headline latency.
type openResult struct {
	service, lag   *report.LatencyRecorder
	issued, behind uint64
}

// pingOpen runs the latency initiator as an open loop: a closed-loop
// warm-up, then operations issued on the schedule, operation i due at
// i/rate seconds, up to the loop's slots in flight. Each operation's
// latency runs from when it was due: its lag (due to post) plus its
// service time (post to completion, halved for a ping-pong like the
// closed loop's figure), so that a stall counts against every operation
// it delayed.
func (s *session) pingOpen(l pingLoop, r *workerResult, tk *ticker) error {
	ol, ok := l.(openLoop)
	if !ok {
		return errors.New("--rate: this transport has no open loop")
	}
	c := s.spec
	if c.Warmup > 0 {
		if _, err := outcome(ol.Ping(uint64(c.Warmup), 0, false)); err != nil {
			return err
		}
	}
	r.open = &openResult{service: report.NewLatencyRecorder(), lag: report.NewDelayRecorder()}
	deadline, n := int64(0), uint64(c.Iterations)
	if c.Duration > 0 {
		n = engine.Forever
		r.rec = report.NewLatencyRecorder()
	} else {
		r.samples = make([]int64, 0, c.Iterations)
	}
	ol.ArmWindow(0)
	ol.StartOpen()
	if c.Duration > 0 {
		deadline = ol.Due(0) + c.Duration.Nanoseconds()
	}
	r.firstNS = ol.Due(0)
	tk.share(r.rec)
	tk.start(ol)
	defer func() {
		r.cpu0, r.cpu1, r.window = ol.Window()
		r.open.issued = ol.Issued()
		if deadline > 0 {
			r.open.behind = ol.DueBy(deadline-1) - min(ol.DueBy(deadline-1), r.open.issued)
		}
	}()
	for {
		st, err := ol.PingOpen(n, deadline, true)
		pairs, first := ol.OpenSamples()
		// Latencies replace the pairs in place: latency k goes where
		// pair k's first half was read, at or before it.
		k := 0
		for ; 2*k < len(pairs); k++ {
			post, done := pairs[2*k], pairs[2*k+1]
			lag := post - ol.Due(first+uint64(k))
			svc := done - post
			if s.plan.halve {
				svc = (svc + 1) / 2
			}
			r.open.lag.Record(lag)
			r.open.service.Record(svc)
			pairs[k] = lag + svc
			r.lastNS = done
		}
		chunk := pairs[:k]
		r.record(chunk, s.local.KeepSamples)
		tk.latency(ol, chunk, c.Size)
		ol.ResetSamples()
		if again, err := outcome(st, err); !again {
			return err
		}
	}
}
