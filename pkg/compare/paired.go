package compare

import (
	"errors"
	"math"
	"slices"
	"sort"
)

// signedRankExactLimit is the largest number of pairs for which the bounds
// of [PairedShift] use the exact distribution of the signed-rank statistic;
// larger samples use its normal approximation.
const signedRankExactLimit = 100

// PairedShift estimates the relative change from base to new when the two
// were measured in pairs (base[i] beside new[i]), with a distribution-free
// confidence interval at the given level. All values must be positive and
// finite; the slices must have the same length and are not modified.
//
// Method (the one-sample Hodges-Lehmann estimator with the bounds of the
// Wilcoxon signed-rank test, Lehmann's "Nonparametrics", 1975, section
// 4.2; R's wilcox.test(paired = TRUE, conf.int = TRUE) picks the same order
// statistics): the model is that new = base x ratio within a pair, a shift
// of the log values. Take the per-pair log ratios d_i = log(new_i) -
// log(base_i) and their n(n+1)/2 Walsh averages (d_i + d_j)/2, i <= j,
// sorted. The estimate is their median. The interval is [w(k),
// w(M+1-k)] (1-based, M = n(n+1)/2), where k is the largest integer with
// 2 P(T <= k-1) <= 1 - confidence for the signed-rank statistic T under
// the null hypothesis (d symmetric about 0). P is exact up to 100 pairs
// and the normal approximation with continuity correction beyond. When no
// k >= 1 qualifies the interval is unbounded. The result is in percent:
// (exp(w) - 1) x 100. The order statistics are selected without listing
// the averages, in memory linear in n (select.go).
//
// Under the null hypothesis of an A/A measurement in alternated order
// (base first in one pair, new first in the next) the d_i are symmetric
// about 0 whatever the machine's drift, which is what the test needs.
func PairedShift(base, new []float64, confidence float64) (Shift, error) {
	if len(base) == 0 || len(base) != len(new) {
		return Shift{}, errors.New("paired shift: want the same number of values, at least one, on each side")
	}
	if !(confidence > 0 && confidence < 1) {
		return Shift{}, errors.New("paired shift: confidence must be between 0 and 1")
	}
	n := len(base)
	d := make([]float64, n)
	for i := range base {
		b, v := base[i], new[i]
		if !(b > 0 && v > 0) || math.IsInf(b, 0) || math.IsInf(v, 0) {
			return Shift{}, errors.New("paired shift: values must be positive and finite")
		}
		d[i] = math.Log(v) - math.Log(b)
	}
	slices.Sort(d)
	m := n * (n + 1) / 2
	// w(k), the k-th smallest of the m Walsh averages (see select.go).
	w := func(k int) float64 { return kthWalsh(d, k) }
	est := w(m/2 + 1)
	if m%2 == 0 {
		est = (w(m/2) + est) / 2
	}
	k, achieved := signedRankOrder(n, confidence)
	s := Shift{EstimatePct: logPct(est), LoPct: math.Inf(-1), HiPct: math.Inf(1), Confidence: achieved}
	if k >= 1 {
		s.LoPct, s.HiPct = logPct(w(k)), logPct(w(m+1-k))
	}
	return s, nil
}

// signedRankOrder returns the order k of the paired interval's lower bound
// and the interval's coverage, 1 - 2 P(T <= k-1); k = 0 means unbounded.
func signedRankOrder(n int, confidence float64) (k int, achieved float64) {
	tail := (1 - confidence) / 2
	m := n * (n + 1) / 2
	if n > signedRankExactLimit {
		return normalRankOrder(m, math.Sqrt(float64(n)*float64(n+1)*float64(2*n+1)/24), confidence)
	}
	cdf := signedRankCDF(n)
	// cdf[t] = P(T <= t) increases with t; k is the largest with
	// P(T <= k-1) <= tail, k <= (m+1)/2.
	k = sort.Search((m+1)/2, func(i int) bool { return cdf[i] > tail })
	if k == 0 {
		return 0, 1
	}
	return k, 1 - 2*cdf[k-1]
}

// signedRankCDF returns P(T <= t) for t = 0..n(n+1)/2, T the Wilcoxon
// signed-rank statistic of n pairs without ties or zeros under the null
// hypothesis: each rank's sign is a fair coin, so the distribution is
// built one rank at a time.
func signedRankCDF(n int) []float64 {
	m := n * (n + 1) / 2
	p := make([]float64, m+1)
	p[0] = 1
	top := 0
	for r := 1; r <= n; r++ {
		top += r
		for t := top; t >= 0; t-- {
			v := p[t] / 2
			if t >= r {
				v += p[t-r] / 2
			}
			p[t] = v
		}
	}
	for t := 1; t <= m; t++ {
		p[t] += p[t-1]
	}
	return p
}
