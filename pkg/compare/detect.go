package compare

import (
	"fmt"
	"math"

	"github.com/aclements/go-moremath/stats"
	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// practicalRuns is the most runs per side we suggest with --repeat. It is
// a judgement, not a measured figure: past it a session of runs per side
// takes long enough for the machine to drift, which unpaired runs only
// average out slowly, and a paired gate that alternates the two sides
// cancels that drift instead.
const practicalRuns = 30

// z80 is the standard normal's 80th percentile: a change this many
// standard errors beyond the edge is decided four times out of five.
var z80 = stats.StdNormal.InvCDF(0.8)

// detectMargin is, in log ratios, how far beyond an edge a true change
// must lie for these runs to decide it: the half-width h of the change's
// interval (the interval around the estimate must clear the edge) plus
// 0.84 standard errors, a standard error being h over the interval's z, so
// that such a change is decided with a chance of about 80% (at 50% it
// would be h alone). The width is taken as it is, centred on the estimate:
// the half-width is half the interval's width in log ratios. It is +Inf
// when the interval is unbounded.
func detectMargin(r *Row) float64 {
	lo, hi := math.Log1p(r.ChangeLoPct/100), math.Log1p(r.ChangeHiPct/100)
	h := (hi - lo) / 2
	conf := r.ChangeConfidence
	if !(conf > 0) { // a row not built by Compare: the level asked for
		conf = r.Options.Confidence
	}
	if math.IsInf(h, 0) || math.IsNaN(h) || !(conf > 0 && conf < 1) {
		return math.Inf(1)
	}
	z := stats.StdNormal.InvCDF(1 - (1-conf)/2)
	return h * (1 + z80/z)
}

// beyond returns the change in percent that lies margin (a log ratio)
// beyond edgePct: above it for a rise, below it for a drop; +Inf or -100
// when margin is infinite.
func beyond(edgePct, margin float64, rise bool) float64 {
	e := math.Log1p(edgePct / 100)
	if !rise {
		return math.Expm1(e-margin) * 100
	}
	return math.Expm1(e+margin) * 100
}

// setDetectable sets the smallest drop and rise an Inconclusive row's runs
// would decide (see [Row.DetectableLoPct]) and its hint.
func setDetectable(r *Row) {
	m := detectMargin(r)
	band := r.Options.NoiseBandPct
	r.DetectableLoPct, r.DetectableHiPct = beyond(-band, m, false), beyond(band, m, true)
	r.Hint = hintFor(r, r.RunsNeeded)
}

// hintFor is hint, or, for a change estimated over sessions, the sessions
// a side that would decide it.
func hintFor(r *Row, n int) string {
	if r.Method == MethodSessions {
		return fmt.Sprintf("about %d sessions a side would decide it", n)
	}
	return hint(n)
}

// detectableText says what a row's runs can decide, for its reason.
func detectableText(r *Row) string {
	if math.IsInf(r.DetectableHiPct, 1) {
		return "no change, however large, can be decided with these " + r.unitWord()
	}
	return fmt.Sprintf("these %s would decide only a change beyond %s or %s (about 4 times in 5)",
		r.unitWord(), display.Pct(r.DetectableLoPct), display.Pct(r.DetectableHiPct))
}

// hint says what would decide a row that needs about n runs per side: a
// rerun with --repeat n when n is practical (at most practicalRuns), else
// the paired gate.
func hint(n int) string {
	if n <= practicalRuns {
		return fmt.Sprintf("rerun both sides with --repeat %d", n)
	}
	runs := fmt.Sprintf("about %d", n)
	if n >= maxRunsEstimate {
		runs = fmt.Sprintf("over %d", maxRunsEstimate)
	}
	return fmt.Sprintf("--repeat would need %s runs per side; where both sides can still be run, use rdma-bench gate "+
		"(paired, alternating runs)", runs)
}
