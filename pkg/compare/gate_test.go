package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// row builds a row with the given change interval and p-value; 10 runs per
// side.
func row(m metric.Metric, lo, hi, p float64) Row {
	mid := (lo + hi) / 2
	return Row{Point: "pt", Metric: m, Base: Side{Median: 10, N: 10}, New: Side{Median: 10 * (1 + mid/100), N: 10},
		ChangePct: mid, MedianChangePct: mid, ChangeLoPct: lo, ChangeHiPct: hi, ChangeConfidence: 0.95, P: p, Options: DefaultOptions()}
}

func TestGateOutcomes(t *testing.T) {
	th := DefaultThresholds() // lat.p50>+5%, lat.p99>+10%, bw<-3%, msgrate<-3%
	cases := []struct {
		name string
		r    Row
		want Outcome
	}{
		{"significant, whole interval beyond", row(metric.LatP50, 6, 8, 0.001), OutcomeFail},
		{"significant, interval straddles", row(metric.LatP50, 4, 8, 0.001), OutcomeInconclusive},
		{"beyond but not significant", row(metric.LatP50, 6, 8, 0.06), OutcomeInconclusive},
		{"slower but within", row(metric.LatP50, 1, 4, 0.001), OutcomePass},
		{"within at the edge", row(metric.LatP50, 1, 5, 0.001), OutcomePass},
		{"faster", row(metric.LatP50, -9, -6, 0.001), OutcomePass},
		{"p99 under its own threshold", row(metric.LatP99, 6, 8, 0.001), OutcomePass},
		{"bandwidth drop beyond", row(metric.BW, -8, -6, 0.001), OutcomeFail},
		{"bandwidth drop straddles", row(metric.BW, -5, -1, 0.001), OutcomeInconclusive},
		{"bandwidth rise", row(metric.BW, 6, 8, 0.001), OutcomePass},
		{"message rate drop beyond", row(metric.MsgRate, -8, -3.5, 0.01), OutcomeFail},
		{"not gated", row(metric.CPUPerOp, 50, 60, 0.001), OutcomeNotGated},
		{"unbounded", row(metric.LatP50, math.Inf(-1), math.Inf(1), 0.2), OutcomeInconclusive},
	}
	for _, c := range cases {
		g := Gate([]Row{c.r}, th, false)
		if got := g.Rows[0].Outcome; got != c.want {
			t.Errorf("%s: %v, want %v: %s", c.name, got, c.want, g.Rows[0].Message)
		}
	}
}

func TestGateMessages(t *testing.T) {
	g := Gate([]Row{row(metric.LatP50, 6, 8, 0.001), row(metric.LatP50, 4, 8, 0.01)}, DefaultThresholds(), false)
	want := "lat.p50 +7.0% [+6.0%, +8.0%], p=0.001 (base 10.00, new 10.70 us): whole interval beyond threshold lat.p50>+5%"
	if got := g.Rows[0].Message; got != want {
		t.Errorf("fail message\n got %s\nwant %s", got, want)
	}
	msg := g.Rows[1].Message
	// [+4%, +8%]: half-width 2%, so a rise of about 5% + 2% x (1 + 0.84/1.96) = 7.9% would fail.
	gr := g.Rows[1]
	if !strings.Contains(msg, "interval straddles threshold lat.p50>+5%; these runs would fail only a regression beyond +7.9%") ||
		gr.GateRunsNeeded <= 10 || !strings.Contains(msg, gr.GateHint) || math.Abs(gr.GateDetectablePct-7.9) > 0.05 {
		t.Errorf("inconclusive message %q, runs %d, detectable %v", msg, gr.GateRunsNeeded, gr.GateDetectablePct)
	}
	// A drop in bandwidth is a regression: the detectable one is below the threshold.
	if gr := Gate([]Row{row(metric.BW, -5, -1, 0.01)}, DefaultThresholds(), false).Rows[0]; !(gr.GateDetectablePct < -3) {
		t.Errorf("bandwidth: detectable %v%%, want below -3%%: %s", gr.GateDetectablePct, gr.Message)
	}
	// Too few runs: the row's own reason.
	r := mustCompare(t, Series{Point: "x", Metric: metric.LatP50, Base: []float64{1, 2, 3}, New: []float64{4, 5, 6}})
	g = Gate([]Row{r}, DefaultThresholds(), false)
	if gr := g.Rows[0]; gr.Outcome != OutcomeInconclusive || gr.Message != r.Reason || gr.GateRunsNeeded != 10 {
		t.Errorf("3 vs 3: %v %q %d", gr.Outcome, gr.Message, gr.GateRunsNeeded)
	}
}

func TestGateExitCodes(t *testing.T) {
	th := DefaultThresholds()
	pass, fail, unsure, ungated := row(metric.LatP50, 1, 4, 0.001), row(metric.LatP50, 6, 8, 0.001), row(metric.LatP50, 4, 8, 0.001), row(metric.CPUPerGB, 40, 50, 0.001)
	cases := []struct {
		rows   []Row
		strict bool
		want   int
		status string
	}{
		{[]Row{pass, ungated}, false, ExitPass, "pass"},
		{[]Row{pass, fail, unsure}, false, ExitRegression, "fail"},
		{[]Row{pass, unsure}, false, ExitInconclusive, "inconclusive"},
		{[]Row{pass, unsure}, true, ExitRegression, "fail"},
		{[]Row{pass}, true, ExitPass, "pass"},
		{nil, false, ExitPass, "pass"},
	}
	for i, c := range cases {
		g := Gate(c.rows, th, c.strict)
		if g.ExitCode() != c.want || g.Status() != c.status {
			t.Errorf("case %d: exit %d %q, want %d %q", i, g.ExitCode(), g.Status(), c.want, c.status)
		}
	}
	c := Gate([]Row{pass, fail, unsure, ungated}, th, false).Counts()
	if c != (GateCounts{Pass: 1, Fail: 1, Inconclusive: 1, NotGated: 1}) {
		t.Errorf("counts %+v", c)
	}
}
