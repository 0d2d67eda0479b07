package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// maxRunsEstimate caps the runs-needed estimate: beyond it the change sits
// so close to the edge that more runs are not a practical answer.
const maxRunsEstimate = 1000

// estimateNote says how the runs (or sessions) needed were estimated.
func (r *Row) estimateNote() string {
	u := r.unitWord()
	return fmt.Sprintf("(%s estimated with the interval's width taken to shrink as 1/sqrt(%s))", u, u)
}

// unitWord names the values a row's change was estimated over.
func (r *Row) unitWord() string {
	if r.Method == MethodSessions {
		return "sessions"
	}
	return "runs"
}

// decide sets the row's verdict, reason and runs needed from its figures.
func decide(r *Row) {
	band, alpha := r.Options.NoiseBandPct, r.Options.Alpha
	lo, hi := r.ChangeLoPct, r.ChangeHiPct
	iv := fmt.Sprintf("the change's %s interval %s", confLabel(r.Options.Confidence), display.Interval(lo, hi))
	bandText := fmt.Sprintf("the +/-%g%% noise band", band)
	n1, n2 := r.units()
	sig := r.P < alpha
	switch {
	case r.Method != MethodSessions && MinPValue(n1, n2) >= alpha:
		r.Verdict = Inconclusive
		r.RunsNeeded = max(RecommendedRuns, MinRuns(alpha))
		setDetectable(r)
		r.Reason = fmt.Sprintf("too few runs (%d base, %d new): the smallest p-value the Mann-Whitney test can give "+
			"is %.3f, not below alpha %g, so %s; at least %d runs per side are needed; %s",
			n1, n2, MinPValue(n1, n2), alpha, detectableText(r), MinRuns(alpha), r.Hint)
	case sig && (lo > band || hi < -band):
		r.Verdict = Slower
		if (lo > band) == r.Metric.HigherIsBetter {
			r.Verdict = Faster
		}
		r.Reason = fmt.Sprintf("%s and %s lies outside %s", fmtP(r.P), iv, bandText)
	case lo >= -band && hi <= band:
		r.Verdict = Same
		r.Reason = fmt.Sprintf("%s lies inside %s (%s)", iv, bandText, fmtP(r.P))
	default:
		r.Verdict = Inconclusive
		shift := math.Log1p(r.ChangePct / 100)
		up, down := math.Log1p(band/100), math.Log1p(-band/100)
		var n int
		switch {
		case shift > up:
			n = runsToClear(r, up)
		case shift < down:
			n = runsToClear(r, down)
		default:
			n = max(runsToClear(r, up), runsToClear(r, down))
		}
		r.RunsNeeded = n
		setDetectable(r)
		if lo > band || hi < -band {
			r.Reason = fmt.Sprintf("%s lies outside %s but %s is not below alpha %g (ties among the values); %s; %s",
				iv, bandText, fmtP(r.P), alpha, detectableText(r), r.Hint)
		} else {
			r.Reason = fmt.Sprintf("%s straddles an edge of %s (%s); %s; %s", iv, bandText, fmtP(r.P), detectableText(r), r.Hint)
		}
		r.Reason += " " + r.estimateNote()
	}
}

// runsToClear estimates the runs per side with which the row's change
// interval would lie wholly on one side of edge (a log ratio), assuming the
// interval keeps its centre and its width shrinks as sqrt(1/n1 + 1/n2). The
// result is at least one more than the larger side and at most
// maxRunsEstimate.
func runsToClear(r *Row, edge float64) int {
	n1, n2 := r.units()
	least := max(n1, n2) + 1
	shift := math.Log1p(r.ChangePct / 100)
	lo, hi := math.Log1p(r.ChangeLoPct/100), math.Log1p(r.ChangeHiPct/100)
	half := hi - shift // the half that faces the edge
	if shift > edge {
		half = shift - lo
	}
	gap := math.Abs(shift - edge)
	if math.IsInf(half, 0) || math.IsNaN(half) || gap == 0 {
		return maxRunsEstimate
	}
	if half <= gap {
		return least
	}
	s := gap / half
	// Equal runs n per side give the same width as (n1, n2) when
	// 2/n = 1/n1 + 1/n2.
	neff := 2 / (1/float64(n1) + 1/float64(n2))
	n := math.Ceil(neff / (s * s))
	if n > maxRunsEstimate {
		return maxRunsEstimate
	}
	return max(least, int(n))
}

// units are the sides' independent values: their sessions when the
// change is estimated over sessions, else their runs.
func (r *Row) units() (int, int) {
	if r.Method == MethodSessions {
		return r.Base.Sessions, r.New.Sessions
	}
	return r.Base.N, r.New.N
}

// confLabel formats a confidence level as a percentage with two
// significant digits of what it leaves out: "95%", "99.74%", "99.9987%".
func confLabel(c float64) string {
	out := 100 * (1 - c)
	if !(out > 0) || out >= 100 {
		return fmt.Sprintf("%g%%", math.Round(c*1e6)/1e4)
	}
	dec := max(0, 1-int(math.Floor(math.Log10(out))))
	t := strconv.FormatFloat(100-out, 'f', dec, 64)
	if strings.Contains(t, ".") {
		t = strings.TrimRight(strings.TrimRight(t, "0"), ".")
	}
	return t + "%"
}
