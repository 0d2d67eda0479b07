package workloads

import (
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// ticker prints live figures during a run (--report-interval): the engine
// yields at each tick without draining, the ticker prints, the run goes
// on. It runs on the first worker; bandwidth figures sum every worker's
// engine. A nil ticker does nothing.
type ticker struct {
	engines []*verbs.Engine
	every   int64 // ns
	next    int64
	startNS int64
	rep     *report.IntervalReporter
	rec     *report.LatencyRecorder
	shared  bool // rec is the run's own recorder, fed by the run
	ops     uint64
}

// share makes the ticker read the run's recorder (duration mode) instead
// of recording every sample a second time.
func (t *ticker) share(rec *report.LatencyRecorder) {
	if t != nil && rec != nil {
		t.rec, t.shared = rec, true
	}
}

func (s *session) newTicker() *ticker {
	if s.cfg.ReportInterval <= 0 || s.cfg.Progress == nil {
		return nil
	}
	t := &ticker{every: s.cfg.ReportInterval.Nanoseconds(), rep: report.NewIntervalReporter(s.cfg.Progress),
		rec: report.NewLatencyRecorder()}
	for _, wk := range s.node.workers {
		t.engines = append(t.engines, wk.eng)
	}
	return t
}

// start arms the first tick; call it after the warm-up.
func (t *ticker) start(eng *verbs.Engine) {
	if t == nil {
		return
	}
	t.startNS = verbs.Now()
	t.next = t.startNS + t.every
	eng.SetYield(t.next)
}

// due reports the figures when the tick has passed and arms the next.
func (t *ticker) due(eng *verbs.Engine, bytes uint64) {
	now := verbs.Now()
	if now < t.next {
		return
	}
	t.rep.Report(report.Counters{ElapsedNS: now - t.startNS, Ops: t.ops, Bytes: bytes, Latency: t.rec})
	for t.next <= now {
		t.next += t.every
	}
	eng.SetYield(t.next)
}

func (t *ticker) latency(eng *verbs.Engine, samples []int64, size int) {
	if t == nil {
		return
	}
	if !t.shared {
		t.rec.RecordChunk(samples)
	}
	t.ops += uint64(len(samples))
	t.due(eng, t.ops*uint64(size))
}

// bandwidth counts the timed operations of every worker (each engine
// publishes its count; the others may still be warming up, at zero).
func (t *ticker) bandwidth(eng *verbs.Engine, size int) {
	if t == nil {
		return
	}
	t.ops = 0
	for _, e := range t.engines {
		t.ops += e.LiveOps()
	}
	t.due(eng, t.ops*uint64(size))
}
