package compare

import (
	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// TestMedianInterval checks each side's median interval against hand-worked
// binomial order statistics, which is how benchmath documents it: the
// interval is [x(l), x(r)] with coverage P(l <= K < r), K ~ Binomial(n, 1/2),
// and at 95% it needs at least 6 values.
func TestMedianInterval(t *testing.T) {
	cases := []struct {
		n, lo, hi int // 1-based order statistics; 0 or n+1 mean unbounded
		coverage  float64
	}{
		{5, 0, 5, 31.0 / 32},               // P(0 <= K <= 4): too small, lower end unbounded
		{6, 1, 6, 62.0 / 64},               // 1 - 2/64
		{10, 2, 9, 1002.0 / 1024},          // 1 - 2*11/1024
		{20, 6, 15, 1 - 2*21700/1048576.0}, // 1 - 2 P(K <= 5)
	}
	for _, c := range cases {
		// Values 101..100+n shuffled: x(i) = 100 + i.
		base := make([]float64, c.n)
		for i := range base {
			base[i] = float64(100 + c.n - i)
		}
		row, err := Compare(Series{Point: "p", Metric: metric.LatP50, Base: base, New: base}, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		order := func(k int, inf float64) float64 {
			if k < 1 || k > c.n {
				return inf
			}
			return float64(100 + k)
		}
		s := row.Base
		wantMedian := float64(100) + float64(c.n+1)/2
		if s.Median != wantMedian || s.Lo != order(c.lo, math.Inf(-1)) || s.Hi != order(c.hi, math.Inf(1)) ||
			math.Abs(s.Confidence-c.coverage) > 1e-12 || s.N != c.n {
			t.Errorf("n=%d: got median %v [%v, %v] coverage %v, want %v [x(%d), x(%d)] coverage %v",
				c.n, s.Median, s.Lo, s.Hi, s.Confidence, wantMedian, c.lo, c.hi, c.coverage)
		}
		warned := strings.Contains(strings.Join(row.Warnings, ";"), "need >= 6 samples for confidence interval")
		if warned != (c.n < 6) {
			t.Errorf("n=%d: warnings %q", c.n, row.Warnings)
		}
	}
}

// TestShiftIntervalHandWorked: 4 runs per side at 95% gives k = 1
// (2 P(U <= 0) = 2/70 <= 0.05 < 2 P(U <= 1) = 4/70), so the interval spans
// the smallest to the largest ratio of a new value to a base value.
func TestShiftIntervalHandWorked(t *testing.T) {
	s, err := ShiftInterval([]float64{10, 11, 12, 13}, []float64{20, 21, 22, 23}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	wantLo, wantHi := (20.0/13-1)*100, (23.0/10-1)*100
	if math.Abs(s.LoPct-wantLo) > 1e-9 || math.Abs(s.HiPct-wantHi) > 1e-9 || math.Abs(s.Confidence-(1-2.0/70)) > 1e-12 {
		t.Errorf("got [%v, %v] coverage %v, want [%v, %v] coverage %v", s.LoPct, s.HiPct, s.Confidence, wantLo, wantHi, 1-2.0/70)
	}
	// 3 runs per side: no order statistic qualifies, the interval is unbounded.
	s, err = ShiftInterval([]float64{10, 11, 12}, []float64{20, 21, 22}, 0.95)
	if err != nil || !math.IsInf(s.LoPct, -1) || !math.IsInf(s.HiPct, 1) {
		t.Errorf("3 vs 3: got %+v, %v; want an unbounded interval", s, err)
	}
}

// TestShiftIntervalInvertsTheTest checks the change's interval against an
// independent construction: the set of log ratios d for which the exact
// two-sided Mann-Whitney test of (log new - d) against log base, computed
// by enumeration, does not reject at 5%. Just inside each end the test
// must not reject; just outside it must.
func TestShiftIntervalInvertsTheTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 12 {
		n1, n2 := 4+rng.IntN(4), 4+rng.IntN(4)
		base, nw := make([]float64, n1), make([]float64, n2)
		for i := range base {
			base[i] = 10 * math.Exp(0.05*rng.NormFloat64())
		}
		ratio := 1 + 0.1*rng.Float64()
		for i := range nw {
			nw[i] = 10 * ratio * math.Exp(0.05*rng.NormFloat64())
		}
		s, err := ShiftInterval(base, nw, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		pAt := func(d float64) float64 {
			lb, ln := make([]float64, n1), make([]float64, n2)
			for i, x := range base {
				lb[i] = math.Log(x)
			}
			for i, x := range nw {
				ln[i] = math.Log(x) - d
			}
			return exactP(lb, ln)
		}
		lo, hi := math.Log1p(s.LoPct/100), math.Log1p(s.HiPct/100)
		const eps = 1e-9
		if p := pAt(lo - eps); p > 0.05 {
			t.Errorf("trial %d: just below the lower end the test gives p = %v, want <= 0.05", trial, p)
		}
		if p := pAt(lo + eps); p <= 0.05 {
			t.Errorf("trial %d: just above the lower end the test gives p = %v, want > 0.05", trial, p)
		}
		if p := pAt(hi - eps); p <= 0.05 {
			t.Errorf("trial %d: just below the upper end the test gives p = %v, want > 0.05", trial, p)
		}
		if p := pAt(hi + eps); p > 0.05 {
			t.Errorf("trial %d: just above the upper end the test gives p = %v, want <= 0.05", trial, p)
		}
		// The estimate is the median of the pairwise log ratios.
		var d []float64
		for _, b := range base {
			for _, x := range nw {
				d = append(d, math.Log(x/b))
			}
		}
		sort.Float64s(d)
		m := (d[(len(d)-1)/2] + d[len(d)/2]) / 2
		if math.Abs(math.Log1p(s.EstimatePct/100)-m) > 1e-12 {
			t.Errorf("trial %d: estimate %v%%, median log ratio %v", trial, s.EstimatePct, m)
		}
	}
}

// TestShiftOrderTable checks the lower order k of the change's interval
// against the published critical values (k - 1 = critical U, two-tailed
// 0.05), and the normal approximation used above 50 runs per side against
// the exact order where both apply.
func TestShiftOrderTable(t *testing.T) {
	for _, c := range []struct{ n1, n2, crit int }{{5, 5, 2}, {8, 8, 13}, {10, 10, 23}, {20, 20, 127}, {4, 8, 4}} {
		if k, _ := shiftOrder(c.n1, c.n2, 0.95); k-1 != c.crit {
			t.Errorf("n1=%d n2=%d: k = %d, want critical value %d + 1", c.n1, c.n2, k, c.crit)
		}
	}
	for _, n := range []int{20, 30, 50} {
		exact, _ := exactOrder(n, n, 0.95)
		approx, _ := normalOrder(n, n, 0.95)
		if d := exact - approx; d < -1 || d > 1 {
			t.Errorf("n=%d: exact k %d, normal approximation %d", n, exact, approx)
		}
	}
}
