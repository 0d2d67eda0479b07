package compare

import (
	"fmt"
	"math"

	"github.com/aclements/go-moremath/mathx"
)

// DefaultNoiseBandPct is the default half-width, in percent, of the band
// around zero inside which a change is treated as noise. It is twice
// criterion's 1% default, a judgement for rdma-bench's main CI use (soft-RoCE
// on shared virtual machines, noisier than dedicated hardware), not a
// measured figure; callers on quieter fabrics can lower it in [Options].
const DefaultNoiseBandPct = 2.0

// RecommendedRuns is the number of repetitions per side we recommend when
// there are too few to decide. It is benchstat's advice ("each benchmark
// should be run at least 10 times"): with 10 runs per side the two-sided
// Mann-Whitney test can reach p < 0.001 and the median's 95% interval no
// longer spans the whole sample.
const RecommendedRuns = 10

// Options are the statistical settings of a comparison.
type Options struct {
	// Confidence is the level of every confidence interval, in (0, 1).
	Confidence float64
	// Alpha is the significance level of the Mann-Whitney U test, in (0, 1):
	// a change can be a regression only when p < Alpha.
	Alpha float64
	// NoiseBandPct is the half-width, in percent of the base median, of the
	// band around zero that counts as noise; 0 <= NoiseBandPct < 100.
	NoiseBandPct float64
	// SessionNoisePct is the lab's standard deviation, in percent, of a
	// point's session median from one session to the next (from its A/A
	// history), used where the sessions of a comparison are too few to
	// measure it; negative: unknown, and one session a side then decides
	// nothing. 0 vouches that sessions do not drift.
	SessionNoisePct float64
}

// DefaultOptions returns 95% intervals, Alpha 0.05 and a noise band of
// [DefaultNoiseBandPct].
func DefaultOptions() Options {
	return Options{Confidence: 0.95, Alpha: 0.05, NoiseBandPct: DefaultNoiseBandPct, SessionNoisePct: -1}
}

// Validate reports the first setting out of its allowed range.
func (o Options) Validate() error {
	switch {
	case !(o.Confidence > 0 && o.Confidence < 1):
		return fmt.Errorf("confidence %v: want a level between 0 and 1 such as 0.95", o.Confidence)
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("alpha %v: want a significance level between 0 and 1 such as 0.05", o.Alpha)
	case !(o.NoiseBandPct >= 0 && o.NoiseBandPct < 100):
		return fmt.Errorf("noise band %v%%: want a percentage from 0 to below 100 such as 2", o.NoiseBandPct)
	case math.IsNaN(o.SessionNoisePct) || o.SessionNoisePct >= 100:
		return fmt.Errorf("session noise %v%%: want a percentage from 0 to below 100 such as 3", o.SessionNoisePct)
	}
	return nil
}

// MinPValue returns the smallest two-sided p-value the Mann-Whitney U test
// can give for samples of n1 and n2 values (without ties): the one for
// completely separated samples, 2 / C(n1+n2, n1), capped at 1.
func MinPValue(n1, n2 int) float64 {
	if n1 < 1 || n2 < 1 {
		return 1
	}
	return math.Min(1, 2/mathx.Choose(n1+n2, n1))
}

// MinRuns returns the smallest number of runs per side (the same on both
// sides) with which the two-sided Mann-Whitney U test can give p < alpha at
// all; with fewer, no difference however large can be significant. It is 4
// for alpha 0.05 (3 runs per side cannot go below p = 0.1) and 0 when alpha
// is not in (0, 1).
func MinRuns(alpha float64) int {
	if !(alpha > 0 && alpha < 1) {
		return 0
	}
	n := 1
	for MinPValue(n, n) >= alpha {
		n++
	}
	return n
}
