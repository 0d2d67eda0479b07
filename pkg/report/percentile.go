package report

import (
	"math/bits"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Reported percentiles in parts per million, so that ranks are computed in
// exact integer arithmetic (99.9/100*1000 is not 999 in float64).
const (
	ppmP50    = 500_000
	ppmP90    = 900_000
	ppmP99    = 990_000
	ppmP99_9  = 999_000
	ppmP99_99 = 999_900
)

var reportedPPM = []int64{ppmP50, ppmP90, ppmP99, ppmP99_9, ppmP99_99}

// nearestRank returns the 1-based nearest rank of the ppm-th per-million
// percentile among n values: ceil(n*ppm/10^6), clamped to [1, n].
func nearestRank(n, ppm int64) int64 {
	if n <= 0 {
		return 0
	}
	if ppm <= 0 {
		return 1
	}
	if ppm >= 1_000_000 {
		return n
	}
	hi, lo := bits.Mul64(uint64(n), uint64(ppm))
	q, rem := bits.Div64(hi, lo, 1_000_000)
	if rem != 0 {
		q++
	}
	return max(1, min(int64(q), n))
}

// samplePercentiles returns the nearest-rank percentiles of sorted, one per
// entry of ppms.
func samplePercentiles(sorted []int64, ppms []int64) []int64 {
	out := make([]int64, len(ppms))
	n := int64(len(sorted))
	for i, p := range ppms {
		if n > 0 {
			out[i] = sorted[nearestRank(n, p)-1]
		}
	}
	return out
}

// sortedCopy returns a sorted copy of s.
func sortedCopy(s []int64) []int64 {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// histSummary is what a histogram tells: nearest-rank percentiles (the
// highest value equivalent to the ranked sample, so never below it) and the
// extreme recorded buckets.
type histSummary struct {
	count    int64
	minNS    int64 // lowest value equivalent to the smallest recorded one
	maxNS    int64 // highest value equivalent to the largest recorded one
	percents []int64
}

// histPercentiles walks h once and resolves the nearest-rank percentiles
// ppms (ascending) with the same rank definition as samplePercentiles.
func histPercentiles(h *hdrhistogram.Histogram, ppms []int64) histSummary {
	s := histSummary{count: h.TotalCount(), percents: make([]int64, len(ppms))}
	if s.count == 0 {
		return s
	}
	ranks := make([]int64, len(ppms))
	for i, p := range ppms {
		ranks[i] = nearestRank(s.count, p)
	}
	var cum int64
	next := 0
	seen := false
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		if !seen {
			s.minNS, seen = b.From, true
		}
		s.maxNS = b.To
		cum += b.Count
		for next < len(ranks) && cum >= ranks[next] {
			s.percents[next] = b.To
			next++
		}
	}
	return s
}
