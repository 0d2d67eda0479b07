package analysis

import (
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// TestThinNoVerdict: a gated row that passed or failed on a side whose
// every run is thin has no verdict; a row with some thin runs, or not
// gated, keeps its outcome; a comparison of thin rows only is
// inconclusive, not a pass.
func TestThinNoVerdict(t *testing.T) {
	side := func(n, thin int) compare.Side {
		return compare.Side{N: n, RunCounts: compare.RunCounts{Thin: thin}}
	}
	row := func(o compare.Outcome, base, new compare.Side) compare.GateRow {
		return compare.GateRow{Row: compare.Row{Point: "write_lat RC poll 64 B", Metric: metric.LatP99, Base: base, New: new}, Outcome: o}
	}
	g := compare.GateResult{Rows: []compare.GateRow{
		row(compare.OutcomePass, side(10, 10), side(10, 10)),
		row(compare.OutcomeFail, side(10, 0), side(10, 10)),
		row(compare.OutcomePass, side(10, 9), side(10, 3)),
		row(compare.OutcomeNotGated, side(10, 10), side(10, 10)),
	}}
	if g.ExitCode() != compare.ExitRegression {
		t.Fatalf("before: exit %d", g.ExitCode())
	}
	thinNoVerdict(&g)
	want := []compare.Outcome{compare.OutcomeInconclusive, compare.OutcomeInconclusive, compare.OutcomePass, compare.OutcomeNotGated}
	for i, r := range g.Rows {
		if r.Outcome != want[i] {
			t.Errorf("row %d: %v, want %v", i, r.Outcome, want[i])
		}
	}
	if m := g.Rows[0].Message; !strings.HasPrefix(m, "no verdict: every run of both sides took its lat.p99 from fewer latency samples") {
		t.Errorf("message %q", m)
	}
	if m := g.Rows[1].Message; !strings.Contains(m, "every run of the new side") {
		t.Errorf("message %q", m)
	}
	if g.ExitCode() != compare.ExitInconclusive {
		t.Errorf("after: exit %d, want %d (inconclusive)", g.ExitCode(), compare.ExitInconclusive)
	}
}
