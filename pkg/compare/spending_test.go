package compare

import (
	"math"
	"testing"
)

// TestSpendingAvailable: a row spends share x n/(n+H) by n pairs, what
// earlier looks spent deducted, and the whole rest at the final look;
// the sum over any looks never exceeds the share.
func TestSpendingAvailable(t *testing.T) {
	s := Spending{Alpha: 0.01, Rows: 2, Horizon: 90}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if got := s.Available(10, 0, false); math.Abs(got-0.005*10/100) > 1e-15 {
		t.Errorf("at 10 pairs: %g, want %g", got, 0.005*10/100)
	}
	spent := 0.0
	for _, n := range []int{10, 15, 23, 35, 53, 80} {
		spent += s.Available(n, spent, false)
	}
	if want := 0.005 * 80 / 170; math.Abs(spent-want) > 1e-15 {
		t.Errorf("after the look at 80 pairs: spent %g, want %g", spent, want)
	}
	spent += s.Available(81, spent, true)
	if math.Abs(spent-0.005) > 1e-15 || s.Available(200, spent, true) != 0 {
		t.Errorf("after the final look: spent %g, want the share 0.005 and nothing left", spent)
	}
	for _, bad := range []Spending{{Alpha: 0, Rows: 1, Horizon: 1}, {Alpha: 0.01, Rows: 0, Horizon: 1}, {Alpha: 0.01, Rows: 1}} {
		if bad.Check() == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// TestSpread: the percentiles of the per-pair changes and the robust
// standard deviation of their logs.
func TestSpread(t *testing.T) {
	base := []float64{10, 10, 10, 10, 10}
	cand := []float64{8, 9, 10, 11, 12}
	sp, ok := Spread(base, cand)
	if !ok {
		t.Fatal("no spread")
	}
	// log ratios: log(0.8), log(0.9), 0, log(1.1), log(1.2); p10 lies
	// 40% of the way from the first to the second.
	p10 := math.Expm1(math.Log(0.8)+0.4*(math.Log(0.9)-math.Log(0.8))) * 100
	if math.Abs(sp.P10Pct-p10) > 1e-9 || !(sp.P90Pct > 10 && sp.P90Pct < 20) {
		t.Errorf("p10 %g (want %g), p90 %g", sp.P10Pct, p10, sp.P90Pct)
	}
	// deviations from the median 0: their median is |log 1.1| or
	// |log 0.9|, the third smallest of {0, .095, .105, .182, .223}.
	if want := 1.4826 * -math.Log(0.9); math.Abs(sp.SigmaLog-want) > 1e-9 {
		t.Errorf("sigma %g, want %g", sp.SigmaLog, want)
	}
	if _, ok := Spread([]float64{1}, []float64{1}); ok {
		t.Error("a spread of one pair")
	}
	if _, ok := Spread([]float64{1, 0}, []float64{1, 1}); ok {
		t.Error("a spread with a zero")
	}
}

// TestReach: more pairs reach smaller regressions, never below half the
// threshold; no spread or no error reaches nothing.
func TestReach(t *testing.T) {
	th, err := ParseThresholds("lat.p50>+5%")
	if err != nil {
		t.Fatal(err)
	}
	sp := PairSpread{SigmaLog: 0.15}
	r40, r400 := Reach(sp, 40, 0.005, th[0]), Reach(sp, 400, 0.005, th[0])
	if !(r400 < r40) || !(r400 > 2.5) {
		t.Errorf("reach at 40 pairs %g, at 400 %g: want smaller with more pairs, above half the threshold", r40, r400)
	}
	if !math.IsInf(Reach(PairSpread{}, 40, 0.005, th[0]), 1) || !math.IsInf(Reach(sp, 40, 0, th[0]), 1) {
		t.Error("a reach without a spread or an error")
	}
}
