package workloads

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/engine"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// loaderYield is how often a loader's stream returns to Go, without
// draining, to see whether the latency loop is done.
const loaderYield = 10 * time.Millisecond

// loadSync holds the latency loop and the loaders (--loaders) of a
// client together: the latency loop starts its warm-up once every loader
// streams, and the loaders stream until the latency loop is done, so that
// the load covers the whole measurement however long its warm-up takes
// under that load.
type loadSync struct {
	ready sync.WaitGroup // a loader each, done once it streams
	once  []sync.Once    // a loader each: ready's Done, once
	done  atomic.Bool
}

func newLoadSync(loaders int) *loadSync {
	l := &loadSync{once: make([]sync.Once, loaders)}
	l.ready.Add(loaders)
	return l
}

// streaming says loader k's timed stream begins (or that it ended
// before it could): once per loader, however often called.
func (l *loadSync) streaming(k int) {
	if l != nil {
		l.once[k].Do(l.ready.Done)
	}
}

// awaitLoad makes the latency loop wait for every loader to stream.
func (l *loadSync) awaitLoad() {
	if l != nil {
		l.ready.Wait()
	}
}

// end tells the loaders the latency loop is done.
func (l *loadSync) end() {
	if l != nil {
		l.done.Store(true)
	}
}

// next arms a loader's next yield and returns the deadline of its next
// Stream call: none while the latency loop runs, now once it is done (the
// stream then closes and drains).
func (l *loadSync) next(eng *engine.Engine) int64 {
	if l.done.Load() {
		eng.SetYield(0)
		return engine.Now()
	}
	eng.SetYield(engine.Now() + loaderYield.Nanoseconds())
	return 0
}

// loadedOf gathers the loaders' figures (workers from the point's own
// threads on); nil without loaders.
func (s *session) loadedOf(workers []workerResult) *report.Loaded {
	if s.spec.Loaders == 0 {
		return nil
	}
	lw, _ := catalog.LoaderOf(s.w)
	l := &report.Loaded{Loaders: s.spec.Loaders, Workload: lw.Name}
	var first, last int64
	for i, r := range workers {
		if !s.isLoader(i) {
			continue
		}
		l.Ops += r.ops
		if r.firstNS != 0 && (first == 0 || r.firstNS < first) {
			first = r.firstNS
		}
		last = max(last, r.lastNS)
	}
	if first != 0 && last > first {
		l.ElapsedNS = last - first
	}
	return l
}
