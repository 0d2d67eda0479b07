package results

import (
	"fmt"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// Value returns a metric's figure in f, in the metric's unit (package
// metric's table); nil when f has no such figure or the metric is
// unknown.
func Value(name string, f *document.Figures) *float64 {
	m, err := metric.Lookup(name)
	if err != nil {
		return nil
	}
	return m.Value(f)
}

// Applies says whether a metric belongs to a point of this kind (package
// metric's table); an unknown metric to none.
func Applies(name string, latency bool) bool {
	m, err := metric.Lookup(name)
	return err == nil && m.AppliesTo(latency)
}

// Values returns a metric's figure in each of a point's runs that has a
// positive one, and how many runs had none.
func (p *Point) Values(metric string) (vals []float64, missing int) {
	vals, _, missing = p.values(metric, nil)
	return vals, missing
}

// values is Values with the session of each value (nil without sessions).
func (p *Point) values(metric string, sess Sessions) (vals []float64, ids []int, missing int) {
	all := sess.of(p.Runs)
	for i, s := range p.Runs {
		if v := Value(metric, &s.Run.Figures); v != nil && *v > 0 {
			vals = append(vals, *v)
			if all != nil {
				ids = append(ids, all[i])
			}
		} else {
			missing++
		}
	}
	return vals, ids, missing
}

// Series returns one compare.Series for every pair and metric that
// applies to it, pairs in order and metrics in the order given, with each
// side's unclean runs counted. A metric that applies but one side has no
// figure for is left out, and so is a pair with a side whose every run
// was left out as unclean; they and runs without a figure are explained
// in notes. With base and new sessions (SessionsOf each side's
// documents), each value carries its session; nil for none.
func (m *Matching) Series(metrics []metric.Metric, base, new Sessions) (series []compare.Series, notes []string) {
	for _, p := range m.Pairs {
		if p.Base.Latency != p.New.Latency {
			notes = append(notes, fmt.Sprintf("%s: a latency point on one side and a bandwidth point on the other: not compared", p.Label))
			continue
		}
		if n := allDropped(p); n != "" {
			notes = append(notes, n)
			continue
		}
		for _, met := range metrics {
			if !Applies(met.Name, p.Base.Latency) {
				continue
			}
			b, bs, bMiss := p.Base.values(met.Name, base)
			n, ns, nMiss := p.New.values(met.Name, new)
			switch {
			case len(b) == 0 && len(n) == 0:
				continue
			case len(b) == 0 || len(n) == 0:
				side := "base"
				if len(n) == 0 {
					side = "new side"
				}
				notes = append(notes, fmt.Sprintf("%s %s: no figure in the %s: not compared", p.Label, met.Name, side))
				continue
			}
			for _, s := range []struct {
				side        string
				miss, total int
			}{{"base", bMiss, len(p.Base.Runs)}, {"new", nMiss, len(p.New.Runs)}} {
				if s.miss > 0 {
					notes = append(notes, fmt.Sprintf("%s %s: %d of %d %s runs have no figure: compared on the other %d",
						p.Label, met.Name, s.miss, s.total, s.side, s.total-s.miss))
				}
			}
			series = append(series, compare.Series{Point: p.Label, Metric: met, Base: b, New: n,
				BaseRuns: p.Base.runCounts(met), NewRuns: p.New.runCounts(met), BaseSessions: bs, NewSessions: ns})
		}
	}
	return series, notes
}

// runCounts are the point's runs with caveats, as a comparison of met
// counts them: unclean, a percentile from too few samples (by the rule of
// display.Thin), a median at the scheduler's tick (display.AtTick).
func (p *Point) runCounts(met metric.Metric) compare.RunCounts {
	c := compare.RunCounts{Unclean: p.Unclean, Dropped: p.Dropped, Partial: p.Partial}
	for _, s := range p.Runs {
		if met.Percentile > 0 && display.Thin(met.Percentile, s.Run.Samples) {
			c.Thin++
		}
		if s.Run.LatencyUS.AtTick() {
			c.Tick++
		}
	}
	return c
}

// allDropped explains a pair with a side whose runs were all left out as
// unclean, or is "".
func allDropped(p *Pair) string {
	var why []string
	for _, s := range []struct {
		side string
		pt   *Point
	}{{"base", p.Base}, {"new", p.New}} {
		if len(s.pt.Runs) == 0 && s.pt.Dropped > 0 {
			why = append(why, fmt.Sprintf("all %d %s runs", s.pt.Dropped, s.side))
		}
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s not clean and left out by --clean-only: not compared", p.Label, strings.Join(why, " and "))
}
