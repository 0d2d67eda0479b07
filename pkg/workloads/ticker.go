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
	t       *report.Ticker
}

func (s *session) newTicker() *ticker {
	t := report.NewTicker(s.cfg.ReportInterval, s.cfg.Progress)
	if t == nil {
		return nil
	}
	tk := &ticker{t: t}
	for _, wk := range s.node.workers {
		tk.engines = append(tk.engines, wk.eng)
	}
	return tk
}

// share makes the ticker read the run's recorder (duration mode) instead
// of recording every sample a second time.
func (t *ticker) share(rec *report.LatencyRecorder) {
	if t != nil {
		t.t.Share(rec)
	}
}

// start arms the first tick; call it after the warm-up.
func (t *ticker) start(eng *verbs.Engine) {
	if t != nil {
		eng.SetYield(t.t.Start(verbs.Now()))
	}
}

func (t *ticker) latency(eng *verbs.Engine, samples []int64, size int) {
	if t != nil {
		eng.SetYield(t.t.Latency(samples, size, verbs.Now()))
	}
}

// bandwidth counts the timed operations of every worker (each engine
// publishes its count; the others may still be warming up, at zero).
func (t *ticker) bandwidth(eng *verbs.Engine, size int) {
	if t == nil {
		return
	}
	ops := uint64(0)
	for _, e := range t.engines {
		ops += e.LiveOps()
	}
	eng.SetYield(t.t.Ops(ops, size, verbs.Now()))
}
