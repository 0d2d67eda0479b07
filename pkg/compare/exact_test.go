package compare

import (
	"math"
	"math/bits"
)

// This file holds the tests' independent computations: the Mann-Whitney
// p-value by enumerating every assignment of the pooled values to the two
// groups, without ranks or any library.

// uStat counts the pairs (b, n) with b > n, ties counting one half: the
// Mann-Whitney U of the first sample.
func uStat(base, new []float64) float64 {
	u := 0.0
	for _, b := range base {
		for _, n := range new {
			switch {
			case b > n:
				u++
			case b == n:
				u += 0.5
			}
		}
	}
	return u
}

// exactP is the two-sided p-value of the Mann-Whitney test as benchstat
// defines it, by enumeration: under the null hypothesis every choice of
// which len(base) of the pooled values form the first group is equally
// likely (ties included, so this is the exact conditional distribution);
// p = 2 P(U <= min(U, n1 n2 - U)), and 1 when U sits at the centre.
func exactP(base, new []float64) float64 {
	pooled := append(append([]float64(nil), base...), new...)
	n1, n := len(base), len(pooled)
	uObs := uStat(base, new)
	mn := float64(len(base) * len(new))
	if uObs == mn-uObs {
		return 1
	}
	uSmall := math.Min(uObs, mn-uObs)
	var total, tail float64
	for mask := uint32(0); mask < 1<<n; mask++ {
		if bits.OnesCount32(mask) != n1 {
			continue
		}
		var g1, g2 []float64
		for i, x := range pooled {
			if mask&(1<<i) != 0 {
				g1 = append(g1, x)
			} else {
				g2 = append(g2, x)
			}
		}
		total++
		if uStat(g1, g2) <= uSmall {
			tail++
		}
	}
	return math.Min(1, 2*tail/total)
}

// withU returns two samples of sizes n1 and n2 (values 1..n1+n2, no ties)
// whose U statistic (pairs base > new) is exactly u.
func withU(n1, n2, u int) (base, new []float64) {
	// label[i] is true when rank i+1 belongs to base; start with base on
	// the lowest ranks (U = 0) and move a base value one rank up past a
	// new value u times, each move adding one to U.
	label := make([]bool, n1+n2)
	for i := range n1 {
		label[i] = true
	}
	for range u {
		for i := len(label) - 2; i >= 0; i-- {
			if label[i] && !label[i+1] {
				label[i], label[i+1] = false, true
				break
			}
		}
	}
	for i, isBase := range label {
		if isBase {
			base = append(base, float64(i+1))
		} else {
			new = append(new, float64(i+1))
		}
	}
	return base, new
}
