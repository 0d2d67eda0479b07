package analysis

import (
	"fmt"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
)

// thinNoVerdict turns to inconclusive every gated row that passed or
// failed although every run of a side took its percentile from fewer
// samples than it needs (display.Thin): each such value is the run's
// largest sample, or near it, so the gate compared maxima, not the
// percentile it was asked about. A comparison whose every gated row is
// thin then says inconclusive (exit 3) instead of pass.
func thinNoVerdict(g *compare.GateResult) {
	for i := range g.Rows {
		r := &g.Rows[i]
		if r.Outcome != compare.OutcomePass && r.Outcome != compare.OutcomeFail {
			continue
		}
		var sides []string
		for _, s := range []struct {
			name string
			side compare.Side
		}{{"base", r.Base}, {"new", r.New}} {
			if s.side.N > 0 && s.side.Thin >= s.side.N {
				sides = append(sides, s.name)
			}
		}
		if len(sides) == 0 {
			continue
		}
		which := "the " + sides[0] + " side"
		if len(sides) == 2 {
			which = "both sides"
		}
		r.Outcome = compare.OutcomeInconclusive
		r.Message = fmt.Sprintf("no verdict: every run of %s took its %s from fewer latency samples than it needs (p99: 100, p99.9: 1,000), so each value is the run's largest sample, or near it",
			which, r.Metric.Name)
		r.GateHint = "run longer (-n, -D) so that every run has the samples the percentile needs"
	}
}
