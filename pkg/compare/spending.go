package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/aclements/go-moremath/stats"
)

// Spending is the false-alarm budget of a sequential gate whose looks
// continue as long as its time allows, so that their number is not known
// when it starts: Rows gated rows, with a chance of at most Alpha that a
// gate whose candidate is no slower fails any of them.
//
// Each row has an even share, Alpha / Rows, spent over its looks as an
// alpha-spending function of its pairs n (Lan and DeMets' idea, with the
// union bound in place of the joint distribution of the looks): by a look
// at n pairs, a row may have spent at most share x n / (n + Horizon) of
// one-sided error, and a look spends what that allows beyond what the
// row's earlier looks spent. The final look, when the time or the most
// pairs run out, spends the whole rest of the share. A look whose test
// cannot reject at what it may spend (too few pairs for so small an
// error) spends nothing and leaves it to the next.
//
// Why it is sound: a look spends its error only where its test can
// reject; each test's chance to fail a row that is no slower is at most
// what it spent; by the union bound, a row's chance to fail at any look
// is at most its share, and the gate's at most Alpha, whatever the
// correlation between looks and rows. When the looks come, and which is
// the last, depend on the clock and on the other rows being decided, not
// on this row's own pairs: a row that is decided has no later test. (The
// pairs' per-pair log ratios are taken as symmetric about zero when
// nothing changed, which the alternated order of the two sides gives:
// docs/gate.md.)
//
// Horizon is the number of pairs at which half the share is available:
// the pairs the budget allows every row, estimated from the warm-up. A
// larger one spends less early, a smaller one more; neither changes the
// bound.
type Spending struct {
	Alpha   float64
	Rows    int
	Horizon int
}

// Check says what is wrong with the spending.
func (s Spending) Check() error {
	if err := (Plan{Alpha: s.Alpha, Rows: s.Rows, Looks: 1}).Check(); err != nil {
		return err
	}
	if s.Horizon < 1 {
		return fmt.Errorf("spending horizon %d pairs: want at least 1", s.Horizon)
	}
	return nil
}

// Share is a row's part of the false-alarm budget: its one-sided error
// over all its looks.
func (s Spending) Share() float64 { return s.Alpha / float64(s.Rows) }

// Available is the one-sided error a row may spend at a look at n pairs,
// when its earlier looks spent spent: all the rest of its share at the
// final look, else share x n / (n + Horizon) less what is spent.
func (s Spending) Available(n int, spent float64, final bool) float64 {
	c := s.Share()
	if !final {
		c *= float64(n) / float64(n+s.Horizon)
	}
	return math.Max(0, c-spent)
}

// ConfidenceOf is the two-sided confidence of an interval whose
// one-sided error is a.
func ConfidenceOf(a float64) float64 { return 1 - 2*a }

// PairSpread is the spread of paired runs: the 10th and 90th percentiles
// of the per-pair changes new/base - 1, in percent, and their robust
// standard deviation in log ratios (1.4826 x the median absolute
// deviation), which [Reach] projects. It needs at least two pairs.
type PairSpread struct {
	P10Pct, P90Pct float64
	SigmaLog       float64
}

// Spread returns the spread of the pairs (base[i], new[i]); false with
// fewer than two, or a value that is not positive.
func Spread(base, new []float64) (PairSpread, bool) {
	if len(base) < 2 || len(base) != len(new) {
		return PairSpread{}, false
	}
	d := make([]float64, len(base))
	for i := range base {
		if !(base[i] > 0 && new[i] > 0) {
			return PairSpread{}, false
		}
		d[i] = math.Log(new[i] / base[i])
	}
	slices.Sort(d)
	med := quantile(d, 0.5)
	dev := make([]float64, len(d))
	for i, x := range d {
		dev[i] = math.Abs(x - med)
	}
	slices.Sort(dev)
	return PairSpread{P10Pct: logPct(quantile(d, 0.1)), P90Pct: logPct(quantile(d, 0.9)), SigmaLog: 1.4826 * quantile(dev, 0.5)}, true
}

// quantile is the q-quantile of sorted x, interpolated between order
// statistics (R's type 7).
func quantile(x []float64, q float64) float64 {
	h := q * float64(len(x)-1)
	lo := int(math.Floor(h))
	if lo >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[lo] + (h-float64(lo))*(x[lo+1]-x[lo])
}

// Reach is the smallest regression, in percent, that n pairs as spread
// as sp would fail about 4 times in 5 at a look whose one-sided error is
// a, under threshold t: [DetectablePct] of the interval such pairs would
// give. The paired interval's half-width is taken as z x sigma x
// sqrt(pi/3) / sqrt(n), the large-sample width of the Hodges-Lehmann
// estimate (its efficiency against the mean is 3/pi under normal noise);
// a projection, not a bound. +Inf when sigma or n says nothing.
func Reach(sp PairSpread, n int, a float64, t Threshold) float64 {
	if n < 1 || !(a > 0 && a < 0.5) || !(sp.SigmaLog > 0) {
		return math.Inf(1)
	}
	conf := ConfidenceOf(a)
	z := stats.StdNormal.InvCDF(1 - a)
	h := z * sp.SigmaLog * math.Sqrt(math.Pi/3/float64(n))
	s := Shift{EstimatePct: 0, LoPct: logPct(-h), HiPct: logPct(h), Confidence: conf}
	return DetectablePct(s, t)
}
