package workloads

import (
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/engine"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// ticker prints live figures during a run (--report-interval): the loop
// yields at each tick without draining, the ticker prints, the run goes
// on. It runs on the first worker; bandwidth figures count every worker's
// operations (liveOps). A nil ticker does nothing.
type ticker struct {
	t       *report.Ticker
	liveOps func() uint64
}

// yielder is a loop that returns at a tick: SetYield arms the next.
type yielder interface{ SetYield(ns int64) }

func newTicker(l Local, sp point.Resolved, liveOps func() uint64) *ticker {
	t := report.NewTicker(l.ReportInterval, l.Progress)
	if t == nil {
		return nil
	}
	if l.Intervals != nil {
		t.Stream(func(iv, cum document.IntervalFigures) {
			l.Intervals(&document.StreamInterval{Type: document.RecordInterval, Workload: sp.Workload,
				SizeBytes: sp.Size, RateOPS: sp.Rate, Interval: iv, Cumulative: cum})
		})
	}
	return &ticker{t: t, liveOps: liveOps}
}

// share makes the ticker read the run's recorder (duration mode) instead
// of recording every sample a second time.
func (t *ticker) share(rec *report.LatencyRecorder) {
	if t != nil {
		t.t.Share(rec)
	}
}

// start arms the first tick; call it after the warm-up.
func (t *ticker) start(l yielder) {
	if t != nil {
		l.SetYield(t.t.Start(engine.Now()))
	}
}

func (t *ticker) latency(l yielder, samples []int64, size int) {
	if t != nil {
		t.arm(l, t.t.Latency(samples, size, engine.Now()))
	}
}

// bandwidth reports the timed operations of every worker so far.
func (t *ticker) bandwidth(l yielder, size int) {
	if t != nil {
		t.arm(l, t.t.Ops(t.liveOps(), size, engine.Now()))
	}
}

// arm sets the loop's next yield: next, or, when printing took longer than
// a period, the first tick still ahead.
func (t *ticker) arm(l yielder, next int64) {
	if now := engine.Now(); next <= now {
		next = t.t.Resume(now)
	}
	l.SetYield(next)
}
