package compare

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// spread returns n values around centre, evenly spread over +/-pct%.
func spread(centre, pct float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		f := 0.0
		if n > 1 {
			f = 2*float64(i)/float64(n-1) - 1
		}
		v[i] = centre * (1 + f*pct/100)
	}
	return v
}

func mustCompare(t *testing.T, s Series) Row {
	t.Helper()
	r, err := Compare(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestVerdictDirections(t *testing.T) {
	cases := []struct {
		name   string
		metric metric.Metric
		ratio  float64
		want   Verdict
	}{
		{"latency up is slower", metric.LatP50, 1.10, Slower},
		{"latency down is faster", metric.LatP99, 0.90, Faster},
		{"bandwidth up is faster", metric.BW, 1.10, Faster},
		{"bandwidth down is slower", metric.BW, 0.90, Slower},
		{"message rate down is slower", metric.MsgRate, 0.90, Slower},
		{"cpu per op up is slower", metric.CPUPerOp, 1.10, Slower},
		{"cpu per GB down is faster", metric.CPUPerGB, 0.90, Faster},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := mustCompare(t, Series{Point: "x", Metric: c.metric,
				Base: spread(10, 1, 10), New: spread(10*c.ratio, 1, 10)})
			if r.Verdict != c.want || r.P >= 0.001 || r.RunsNeeded != 0 {
				t.Fatalf("got %v (p=%v, runs %d): %s", r.Verdict, r.P, r.RunsNeeded, r.Reason)
			}
			wantPct := (c.ratio - 1) * 100
			if math.Abs(r.ChangePct-wantPct) > 1e-9 || !(r.ChangeLoPct < wantPct && wantPct < r.ChangeHiPct) {
				t.Errorf("change %v%% %s, want %v%% inside", r.ChangePct, display.Interval(r.ChangeLoPct, r.ChangeHiPct), wantPct)
			}
		})
	}
}

func TestVerdictSame(t *testing.T) {
	v := spread(10, 1, 10)
	r := mustCompare(t, Series{Point: "x", Metric: metric.LatP50, Base: v, New: append([]float64(nil), v...)})
	if r.Verdict != Same || r.P != 1 || r.ChangePct != 0 || r.ChangeLoPct < -2 || r.ChangeHiPct > 2 {
		t.Fatalf("identical samples: %v p=%v %v%% %s: %s", r.Verdict, r.P, r.ChangePct,
			display.Interval(r.ChangeLoPct, r.ChangeHiPct), r.Reason)
	}
	// A significant change smaller than the noise band is still Same.
	r = mustCompare(t, Series{Point: "x", Metric: metric.LatP50, Base: spread(10, 0.2, 10), New: spread(10.1, 0.2, 10)})
	if r.Verdict != Same || r.P >= 0.05 {
		t.Fatalf("+1%% inside the band: %v p=%v: %s", r.Verdict, r.P, r.Reason)
	}
}

func TestVerdictInconclusiveNoisy(t *testing.T) {
	// +4% on values spread over +/-6%: the interval straddles the band.
	r := mustCompare(t, Series{Point: "write_lat RC poll 64 B", Metric: metric.LatP50,
		Base: spread(10, 6, 10), New: spread(10.4, 6, 10)})
	if r.Verdict != Inconclusive || r.RunsNeeded <= 10 || r.RunsNeeded >= maxRunsEstimate {
		t.Fatalf("got %v, runs needed %d: %s", r.Verdict, r.RunsNeeded, r.Reason)
	}
	for _, want := range []string{"straddles an edge of the +/-2% noise band",
		fmt.Sprintf("these runs would decide only a change beyond %s or %s", display.Pct(r.DetectableLoPct), display.Pct(r.DetectableHiPct)),
		"rdma-bench gate", "estimate"} {
		if !strings.Contains(r.Reason, want) {
			t.Errorf("reason %q lacks %q", r.Reason, want)
		}
	}
	if r.RunsNeeded <= practicalRuns || !strings.HasPrefix(r.Hint, "--repeat would need about ") {
		t.Errorf("%d runs needed: hint %q, want the paired gate", r.RunsNeeded, r.Hint)
	}
	// The smallest detectable rise is decided with as many runs equally
	// spread; a rise beyond the band by half the interval's half-width is
	// not.
	h := (math.Log1p(r.ChangeHiPct/100) - math.Log1p(r.ChangeLoPct/100)) / 2
	for _, c := range []struct {
		rise float64
		want Verdict
	}{{r.DetectableHiPct, Slower}, {math.Expm1(math.Log1p(0.02)+h/2) * 100, Inconclusive}} {
		got := mustCompare(t, Series{Point: "x", Metric: metric.LatP50, Base: spread(10, 6, 10), New: spread(10*(1+c.rise/100), 6, 10)})
		if got.Verdict != c.want {
			t.Errorf("a rise of %.2f%%: %v, want %v: %s", c.rise, got.Verdict, c.want, got.Reason)
		}
	}
	// The same spread with the estimated number of runs decides.
	n := r.RunsNeeded
	r = mustCompare(t, Series{Point: "x", Metric: metric.LatP50, Base: spread(10, 6, n), New: spread(10.4, 6, n)})
	if r.Verdict != Slower {
		t.Errorf("with %d runs per side: %v: %s", n, r.Verdict, r.Reason)
	}
}

func TestVerdictTooFewRuns(t *testing.T) {
	// Even a 50% slowdown cannot be significant with 3 runs per side.
	r := mustCompare(t, Series{Point: "x", Metric: metric.LatP50, Base: []float64{10, 10.1, 10.2}, New: []float64{15, 15.1, 15.2}})
	want := "too few runs (3 base, 3 new): the smallest p-value the Mann-Whitney test can give is 0.100, " +
		"not below alpha 0.05, so no change, however large, can be decided with these runs; at least 4 runs per side are needed; " +
		"rerun both sides with --repeat 10"
	if r.Verdict != Inconclusive || r.Reason != want || r.RunsNeeded != 10 || !math.IsInf(r.DetectableHiPct, 1) {
		t.Fatalf("got %v, %d runs: %q", r.Verdict, r.RunsNeeded, r.Reason)
	}
	if !math.IsInf(r.ChangeLoPct, -1) || !math.IsInf(r.ChangeHiPct, 1) || math.Abs(r.P-0.1) > 1e-12 {
		t.Errorf("interval %s p=%v, want unbounded and 0.1", display.Interval(r.ChangeLoPct, r.ChangeHiPct), r.P)
	}
	// A single run per side, equal or not, is too few but not an error.
	for _, nw := range []float64{10, 12} {
		r = mustCompare(t, Series{Point: "x", Metric: metric.BW, Base: []float64{10}, New: []float64{nw}})
		if r.Verdict != Inconclusive || !strings.HasPrefix(r.Reason, "too few runs (1 base, 1 new)") {
			t.Errorf("1 vs 1 (%v): %v: %s", nw, r.Verdict, r.Reason)
		}
	}
	// 4 per side can decide a clear change.
	r = mustCompare(t, Series{Point: "x", Metric: metric.LatP50, Base: []float64{10, 10.1, 10.2, 10.3}, New: []float64{15, 15.1, 15.2, 15.3}})
	if r.Verdict != Slower {
		t.Errorf("4 vs 4: %v: %s", r.Verdict, r.Reason)
	}
}

func TestCompareBadInput(t *testing.T) {
	ok := []float64{1, 2, 3}
	cases := []struct {
		s    Series
		o    Options
		want string
	}{
		{Series{Point: "p", Metric: metric.LatP50, New: ok}, DefaultOptions(), `point "p", metric lat.p50: base side has no values`},
		{Series{Point: "p", Metric: metric.BW, Base: ok, New: []float64{1, math.NaN()}}, DefaultOptions(),
			`point "p", metric bw: new value 2 of 2 is NaN: want a positive finite number`},
		{Series{Point: "p", Metric: metric.BW, Base: []float64{math.Inf(1)}, New: ok}, DefaultOptions(),
			`point "p", metric bw: base value 1 of 1 is +Inf: want a positive finite number`},
		{Series{Point: "p", Metric: metric.CPUPerOp, Base: ok, New: []float64{-1.5}}, DefaultOptions(),
			`point "p", metric cpu.op: new value 1 of 1 is -1.5: want a positive finite number`},
		{Series{Point: "p", Metric: metric.CPUPerGB, Base: []float64{0}, New: ok}, DefaultOptions(),
			`point "p", metric cpu.gb: base value 1 of 1 is 0: want a positive finite number`},
		{Series{Point: "p", Base: ok, New: ok}, DefaultOptions(), `point "p": metric has no name`},
		{Series{Point: "p", Metric: metric.LatP50, Base: ok, New: ok}, Options{Confidence: 95, Alpha: 0.05},
			`point "p", metric lat.p50: confidence 95: want a level between 0 and 1 such as 0.95`},
		{Series{Point: "p", Metric: metric.LatP50, Base: ok, New: ok}, Options{Confidence: 0.95, Alpha: 0},
			`point "p", metric lat.p50: alpha 0: want a significance level between 0 and 1 such as 0.05`},
		{Series{Point: "p", Metric: metric.LatP50, Base: ok, New: ok}, Options{Confidence: 0.95, Alpha: 0.05, NoiseBandPct: -1},
			`point "p", metric lat.p50: noise band -1%: want a percentage from 0 to below 100 such as 2`},
	}
	for _, c := range cases {
		_, err := Compare(c.s, c.o)
		if err == nil || err.Error() != c.want {
			t.Errorf("got %v\nwant %s", err, c.want)
		}
	}
}

// TestChangeIsHodgesLehmann: the change every format shows is the
// Hodges-Lehmann estimate, the centre of its interval, even where the
// change of the medians is far from it (two modes, the new side's median
// falling in the lower one); the medians' change is kept apart.
func TestChangeIsHodgesLehmann(t *testing.T) {
	base := []float64{1, 1, 1, 1, 1, 5, 5, 5, 5, 5}
	nw := []float64{1, 1, 1, 1, 1, 1, 5, 5, 5, 5}
	r := mustCompare(t, Series{Point: "x", Metric: metric.LatP50, Base: base, New: nw})
	sh, err := ShiftInterval(base, nw, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if r.ChangePct != sh.EstimatePct || r.ChangePct < r.ChangeLoPct || r.ChangePct > r.ChangeHiPct {
		t.Errorf("change %v%%, Hodges-Lehmann %v%%, interval %s", r.ChangePct, sh.EstimatePct, display.Interval(r.ChangeLoPct, r.ChangeHiPct))
	}
	if math.Abs(r.MedianChangePct-(1.0/3-1)*100) > 1e-9 {
		t.Errorf("medians' change %v%%, want -66.7%%", r.MedianChangePct)
	}
	g := Gate([]Row{r}, nil, false).Rows[0]
	if cell := g.Cells()[4]; !strings.HasPrefix(cell, display.Pct(sh.EstimatePct)+" [") {
		t.Errorf("change cell %q does not start with the estimate %s", cell, display.Pct(sh.EstimatePct))
	}
}

// TestHintRepeat: a row a few more runs would decide says how many, with
// --repeat.
func TestHintRepeat(t *testing.T) {
	r := mustCompare(t, Series{Point: "x", Metric: metric.LatP50, Base: spread(10, 3, 10), New: spread(10.4, 3, 10)})
	if r.Verdict != Inconclusive || r.RunsNeeded > practicalRuns || r.Hint != fmt.Sprintf("rerun both sides with --repeat %d", r.RunsNeeded) ||
		!strings.Contains(r.Reason, r.Hint) {
		t.Errorf("%v, %d runs needed, hint %q: %s", r.Verdict, r.RunsNeeded, r.Hint, r.Reason)
	}
}

// TestMedianNote: a medians' change outside the change's interval is
// explained, in the words of the estimate; one inside it, or an
// unbounded interval, is not.
func TestMedianNote(t *testing.T) {
	for e, want := range map[Estimate]string{
		EstimateRuns:     "the Hodges-Lehmann estimate of new/base over every pair of a base value and a new one",
		EstimateSessions: "the mean of each side's log session medians (Student's t interval)",
		EstimatePairs:    "the one-sample Hodges-Lehmann estimate of the pairs' log ratios",
	} {
		n := MedianNote(e, -30.6, -3.6, -5.1, -2.0)
		if !strings.HasPrefix(n, "the medians differ by -30.6%, the change is -3.6% [-5.1%, -2.0%]: ") || !strings.Contains(n, want) {
			t.Errorf("estimate %d, outside: %q, want %q", e, n, want)
		}
	}
	if n := MedianNote(EstimateRuns, -3.0, -3.6, -5.1, -2.0); n != "" {
		t.Errorf("inside: %q", n)
	}
	if n := MedianNote(EstimateRuns, -30, -3.6, math.Inf(-1), math.Inf(1)); n != "" {
		t.Errorf("unbounded: %q", n)
	}
	if EstimateOf(MethodSessions) != EstimateSessions || EstimateOf(MethodSessionNoise) != EstimateRuns || EstimateOf(MethodRuns) != EstimateRuns {
		t.Errorf("EstimateOf: sessions %d, session noise %d, runs %d", EstimateOf(MethodSessions), EstimateOf(MethodSessionNoise), EstimateOf(MethodRuns))
	}
}
