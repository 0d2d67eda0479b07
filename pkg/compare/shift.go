package compare

import (
	"errors"
	"math"
	"slices"
	"sort"

	"github.com/aclements/go-moremath/stats"
)

// Shift is the change from a base sample to a new one, in percent of the
// base: +5 means the new values are 5% larger.
type Shift struct {
	// EstimatePct is the Hodges-Lehmann estimate of the change.
	EstimatePct float64
	// LoPct and HiPct bound the confidence interval of the change; they
	// are -Inf and +Inf when the samples are too small for the level.
	LoPct, HiPct float64
	// Confidence is the interval's actual coverage, which is at least the
	// level asked for (the U statistic is discrete).
	Confidence float64
}

// shiftExactLimit is the largest sample size per side for which the bounds
// use the exact distribution of U; larger samples use its normal
// approximation. It is go-moremath's own limit for the exact U test.
const shiftExactLimit = 50

// ShiftInterval estimates the relative change from base to new with a
// distribution-free confidence interval at the given level. All values must
// be positive and finite; the slices are not modified.
//
// Method (the Hodges-Lehmann estimator with the distribution-free bounds of
// Lehmann's "Nonparametrics", 1975, section 2.6; R's exact
// wilcox.test(conf.int = TRUE) picks the same order statistics, except that
// where no order statistic qualifies R falls back to the sample's range):
// the model is that new = base x ratio, a shift of the log values. Take
// every pairwise difference d = log(new_j) - log(base_i), n1 x n2 of them,
// sorted. The estimate is their median. The interval is [d(k), d(n1n2+1-k)]
// (1-based order statistics), where k is the largest integer with
// 2 P(U <= k-1) <= 1 - confidence for the Mann-Whitney U statistic under the
// null hypothesis, without ties. It is the set of log ratios that the
// two-sided Mann-Whitney test at level 1 - confidence does not reject, so
// (for data without ties) it excludes 0 exactly when p <= 1 - confidence.
// When no k >= 1 qualifies (3 runs per
// side at 95%) the interval is unbounded. P(U <= u) is go-moremath's exact
// distribution up to 50 values per side and a normal approximation with
// continuity correction beyond. The result is converted back to percent:
// (exp(d) - 1) x 100. The order statistics are selected without listing
// the differences, in memory linear in n1 + n2 (select.go).
//
// Why not benchmath: it gives an interval for each side's median and a
// p-value for the difference, but no interval for the difference, and the
// overlap of two median intervals is not one. Why log values: performance
// changes are multiplicative (a 5% slower build is 5% slower at 10 us and
// at 100 us), and a ratio keeps the interval in percent of the base.
func ShiftInterval(base, new []float64, confidence float64) (Shift, error) {
	if len(base) == 0 || len(new) == 0 {
		return Shift{}, errors.New("shift interval: both samples need at least one value")
	}
	if !(confidence > 0 && confidence < 1) {
		return Shift{}, errors.New("shift interval: confidence must be between 0 and 1")
	}
	x, okX := sortedLogs(new)
	y, okY := sortedLogs(base)
	if !okX || !okY {
		return Shift{}, errors.New("shift interval: values must be positive and finite")
	}
	m := len(x) * len(y)
	// d(k), the k-th smallest of the m differences (see select.go).
	d := func(k int) float64 { return kthDiff(x, y, k) }
	est := d(m/2 + 1)
	if m%2 == 0 {
		est = (d(m/2) + est) / 2
	}
	k, achieved := shiftOrder(len(base), len(new), confidence)
	s := Shift{EstimatePct: logPct(est), LoPct: math.Inf(-1), HiPct: math.Inf(1), Confidence: achieved}
	if k >= 1 {
		s.LoPct, s.HiPct = logPct(d(k)), logPct(d(m+1-k))
	}
	return s, nil
}

// sortedLogs returns the logs of v, sorted ascending, and false if a value
// is not positive and finite. No log is -0 (math.Log(1) is +0), so neither
// is a difference of two nor a Walsh average: fl(x - y) and fl(x + y) are
// -0 only from a -0 operand.
func sortedLogs(v []float64) ([]float64, bool) {
	out := make([]float64, len(v))
	for i, x := range v {
		if !(x > 0) || math.IsInf(x, 0) {
			return nil, false
		}
		out[i] = math.Log(x)
	}
	slices.Sort(out)
	return out, true
}

// logPct turns a log ratio into a change in percent.
func logPct(d float64) float64 {
	return math.Expm1(d) * 100
}

// shiftOrder returns the order k of the interval's lower bound and the
// interval's coverage, 1 - 2 P(U <= k-1); k = 0 means unbounded.
func shiftOrder(n1, n2 int, confidence float64) (k int, achieved float64) {
	if n1 > shiftExactLimit || n2 > shiftExactLimit {
		return normalOrder(n1, n2, confidence)
	}
	return exactOrder(n1, n2, confidence)
}

// exactOrder is shiftOrder with the exact distribution of U.
func exactOrder(n1, n2 int, confidence float64) (k int, achieved float64) {
	tail := (1 - confidence) / 2
	dist := stats.UDist{N1: n1, N2: n2}
	// cdfBelow(k) = P(U <= k-1) increases with k; find the largest k in
	// [0, kmax] with cdfBelow(k) <= tail. k = 0 always qualifies.
	cdfBelow := func(k int) float64 { return dist.CDF(float64(k - 1)) }
	k = sort.Search((n1*n2+1)/2, func(i int) bool { return cdfBelow(i+1) > tail })
	if k == 0 {
		return 0, 1
	}
	return k, 1 - 2*cdfBelow(k)
}

// normalOrder is shiftOrder with the normal approximation of U.
func normalOrder(n1, n2 int, confidence float64) (k int, achieved float64) {
	mn := n1 * n2
	return normalRankOrder(mn, math.Sqrt(float64(mn)*float64(n1+n2+1)/12), confidence)
}

// normalRankOrder is the order k of an interval's lower bound among m
// sorted differences and its coverage, for a rank statistic of mean m/2
// and standard deviation sigma, from the normal approximation with a
// continuity correction: P(S <= k-1) ~ Phi((k - 1/2 - m/2) / sigma).
func normalRankOrder(m int, sigma, confidence float64) (k int, achieved float64) {
	mu := float64(m) / 2
	z := stats.StdNormal.InvCDF(1 - (1-confidence)/2)
	k = int(math.Floor(mu - z*sigma + 0.5))
	k = max(0, min(k, (m+1)/2))
	if k == 0 {
		return 0, 1
	}
	return k, 1 - 2*stats.StdNormal.CDF((float64(k)-0.5-mu)/sigma)
}
