package compare

import (
	"errors"
	"fmt"
	"math"

	"github.com/aclements/go-moremath/stats"
)

// Plan is the false-alarm budget of a sequential gate: Rows gated rows,
// each looked at up to Looks times, with a chance of at most Alpha that a
// gate whose candidate is no slower fails.
//
// The budget is split evenly over every (row, look) test (Bonferroni):
// each test's one-sided error is Alpha / (Rows x Looks), so its two-sided
// interval has confidence 1 - 2 Alpha / (Rows x Looks). By the union bound
// the chance that any row fails at any look, when no row is slower, is at
// most Alpha whatever the correlation between rows and looks, and whatever
// the number of pairs at each look. That makes it a valid rule for stopping
// as soon as every row is decided, and for a budget that runs out between
// two scheduled looks (the last look is then taken early: still one of the
// Looks). An even split spends more of Alpha on early looks than an
// O'Brien-Fleming schedule would; early looks rarely decide under emulated
// noise, so the loss of power is small, and the rule is simple to check.
type Plan struct {
	Alpha float64
	Rows  int
	Looks int
}

// Check says what is wrong with the plan.
func (p Plan) Check() error {
	switch {
	case !(p.Alpha > 0 && p.Alpha < 0.5):
		return fmt.Errorf("false-alarm rate %g: want a value between 0 and 0.5", p.Alpha)
	case p.Rows < 1:
		return errors.New("no gated row: want at least one")
	case p.Looks < 1:
		return errors.New("no look: want at least one")
	}
	return nil
}

// TestAlpha is the one-sided error of one test of one row at one look.
func (p Plan) TestAlpha() float64 {
	return p.Alpha / float64(p.Rows*p.Looks)
}

// Confidence is the two-sided confidence of each interval the gate draws.
func (p Plan) Confidence() float64 {
	return 1 - 2*p.TestAlpha()
}

// Decision is a gated row's state in a sequential gate.
type Decision int

// The decisions.
const (
	// Undecided: the interval neither clears the threshold nor shows a
	// regression of at least half of it.
	Undecided Decision = iota
	// Pass: the whole interval lies on the good side of the threshold.
	Pass
	// Fail: the change is a regression (the whole interval lies on the
	// bad side of no change) of at least half the threshold.
	Fail
)

var decisionNames = [...]string{"undecided", "pass", "fail"}

// String returns the decision in lower case.
func (d Decision) String() string {
	if d < 0 || int(d) >= len(decisionNames) {
		return fmt.Sprintf("decision(%d)", int(d))
	}
	return decisionNames[d]
}

// MarshalText encodes the decision as its name.
func (d Decision) MarshalText() ([]byte, error) {
	if d < 0 || int(d) >= len(decisionNames) {
		return nil, fmt.Errorf("decision %d: want one of %v", int(d), decisionNames)
	}
	return []byte(d.String()), nil
}

// UnmarshalText decodes a decision's name.
func (d *Decision) UnmarshalText(b []byte) error {
	for i, n := range decisionNames {
		if string(b) == n {
			*d = Decision(i)
			return nil
		}
	}
	return fmt.Errorf("decision %q: want one of %v", b, decisionNames)
}

// Decide applies the gate's rule to a change s of a metric gated by t:
//
//   - Fail when the interval lies wholly on the regression side of 0 and
//     the estimate is at least half the threshold: a regression is
//     certain, and large enough to matter. Requiring the estimate at half
//     the threshold, not the whole interval beyond it, is what lets a
//     change of the threshold's size fail most of the time instead of half
//     of it.
//   - Pass when the interval lies wholly on the good side of the
//     threshold: no regression as large as the threshold.
//   - Undecided otherwise: more pairs would tell.
func Decide(s Shift, t Threshold) Decision {
	lo, hi, est := s.LoPct, s.HiPct, s.EstimatePct
	if t.Metric.HigherIsBetter { // a regression is a decrease: mirror it
		lo, hi, est = -s.HiPct, -s.LoPct, -s.EstimatePct
	}
	switch {
	case lo > 0 && est >= t.LimitPct/2:
		return Fail
	case hi < t.LimitPct:
		return Pass
	}
	return Undecided
}

// DetectablePct is the smallest regression, in percent of the base (an
// increase for a lower-is-better metric, a decrease for a higher-is-better
// one), that a row with change s would fail with a chance of about 80% at
// the same number of pairs: the estimate must clear the interval's
// half-width h on the regression side and half the threshold, plus 0.84
// standard errors (the normal's 80th percentile), a standard error being h
// over the interval's z. Widths are taken in log ratios. It is +Inf when
// the interval is unbounded on the regression side.
func DetectablePct(s Shift, t Threshold) float64 {
	est := math.Log1p(s.EstimatePct / 100)
	h := est - math.Log1p(s.LoPct/100)
	if t.Metric.HigherIsBetter {
		h = math.Log1p(s.HiPct/100) - est
	}
	if math.IsInf(h, 0) || math.IsNaN(h) || h < 0 || s.Confidence >= 1 {
		return math.Inf(1)
	}
	half := math.Log1p(t.LimitPct / 200)
	if t.Metric.HigherIsBetter {
		half = -math.Log1p(-t.LimitPct / 200)
	}
	z := stats.StdNormal.InvCDF(1 - (1-s.Confidence)/2)
	need := max(h, half) + z80*h/z
	if t.Metric.HigherIsBetter {
		return -math.Expm1(-need) * 100
	}
	return math.Expm1(need) * 100
}
