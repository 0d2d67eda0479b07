package workloads

import (
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// loaderMargin is how much longer than the latency loop's timed span a
// loader streams: it starts before the latency loop's first due
// operation (whose warm-up is the longer), and stops after its last.
const loaderMargin = 100 * time.Millisecond

// loaderSpan is how long each loader streams after its warm-up: the
// latency loop's timed span (-D, or -n operations at --rate) and the
// margin, so that the load covers the whole measurement.
func loaderSpan(c point.Resolved) time.Duration {
	d := c.Duration
	if d == 0 && c.Rate > 0 {
		d = time.Duration(float64(c.Iterations) / float64(c.Rate) * float64(time.Second))
	}
	return d + loaderMargin
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
