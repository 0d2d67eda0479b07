package compare

import (
	"fmt"
	"math"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// Exit codes of a compare command, as [GateResult.ExitCode] gives them.
const (
	// ExitPass: no regression beyond a threshold, nothing undecided.
	ExitPass = 0
	// ExitRegression: a regression beyond a threshold (or, with strict,
	// an inconclusive gated row).
	ExitRegression = 1
	// ExitBadInput is for the caller: input that could not be compared.
	ExitBadInput = 2
	// ExitInconclusive: no regression, but a gated row could not be
	// decided.
	ExitInconclusive = 3
)

// Outcome is a row's result at the gate.
type Outcome int

// The outcomes.
const (
	// OutcomeNotGated: no threshold for the row's metric; the verdict is
	// informational.
	OutcomeNotGated Outcome = iota
	// OutcomePass: the whole interval of the change is within the threshold.
	OutcomePass
	// OutcomeFail: the change is significant and its whole interval lies
	// beyond the threshold.
	OutcomeFail
	// OutcomeInconclusive: the interval straddles the threshold, or the
	// change beyond it is not significant.
	OutcomeInconclusive
)

var outcomeNames = [...]string{"not gated", "pass", "fail", "inconclusive"}

// String returns the outcome in lower case.
func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return fmt.Sprintf("outcome(%d)", int(o))
	}
	return outcomeNames[o]
}

// GateRow is a row with its outcome at the gate.
type GateRow struct {
	Row
	// Outcome is the row's result; Threshold is the one applied (nil when
	// not gated).
	Outcome   Outcome
	Threshold *Threshold
	// Message explains the outcome with the figures.
	Message string
	// GateRunsNeeded, for an inconclusive outcome, is the runs per side
	// recommended or estimated to decide against the threshold (the row's
	// own RunsNeeded is against the noise band).
	GateRunsNeeded int
	// GateDetectablePct, for an inconclusive outcome, is the smallest
	// regression (a rise for a lower-is-better metric, a drop for a
	// higher-is-better one) that runs like these would fail, about 4 times
	// in 5: beyond the threshold by the interval's half-width and 0.84
	// standard errors; +Inf or -100 when no change can be decided.
	GateDetectablePct float64
	// GateHint, for an inconclusive outcome, is what would decide it (see
	// [Row.Hint]).
	GateHint string
}

// GateResult is the outcome of a gate over every row.
type GateResult struct {
	Rows       []GateRow
	Thresholds []Threshold
	// Strict makes an inconclusive gated row fail the gate.
	Strict bool
}

// Gate checks every row against the threshold of its metric (by name). A
// row fails when its change is significant (p < Alpha) and the WHOLE
// interval of the change lies beyond the threshold; it passes when the
// whole interval lies within; otherwise it is inconclusive.
func Gate(rows []Row, th []Threshold, strict bool) GateResult {
	g := GateResult{Thresholds: append([]Threshold(nil), th...), Strict: strict}
	for _, r := range rows {
		g.Rows = append(g.Rows, gateRow(r, g.Thresholds))
	}
	return g
}

func gateRow(r Row, th []Threshold) GateRow {
	gr := GateRow{Row: r}
	for i := range th {
		if th[i].Metric.Name == r.Metric.Name {
			gr.Threshold = &th[i]
		}
	}
	if gr.Threshold == nil {
		gr.Message = "no threshold for " + r.Metric.Name
		return gr
	}
	t := *gr.Threshold
	edge := t.EdgePct()
	lo, hi := r.ChangeLoPct, r.ChangeHiPct
	over, within := lo > edge, hi <= edge
	if r.Metric.HigherIsBetter {
		over, within = hi < edge, lo >= edge
	}
	figures := fmt.Sprintf("%s %s %s, %s (base %s, new %s %s)", r.Metric.Name, display.Pct(r.ChangePct),
		display.Interval(lo, hi), fmtP(r.P), display.Value(r.Base.Median), display.Value(r.New.Median), r.Metric.Unit)
	switch {
	case r.Method == MethodOneSession:
		gr.Outcome, gr.Message = OutcomeInconclusive, r.Reason
		gr.GateDetectablePct, gr.GateHint = beyond(edge, math.Inf(1), !r.Metric.HigherIsBetter), r.Hint
	case r.Method != MethodSessions && MinPValue(r.Base.N, r.New.N) >= r.Options.Alpha:
		gr.Outcome, gr.GateRunsNeeded, gr.Message = OutcomeInconclusive, r.RunsNeeded, r.Reason
		gr.GateDetectablePct, gr.GateHint = beyond(edge, math.Inf(1), !r.Metric.HigherIsBetter), r.Hint
	case r.P < r.Options.Alpha && over:
		gr.Outcome = OutcomeFail
		gr.Message = fmt.Sprintf("%s: whole interval beyond threshold %s", figures, t)
	case within:
		gr.Outcome = OutcomePass
		gr.Message = fmt.Sprintf("%s: whole interval within threshold %s", figures, t)
	default:
		gr.Outcome = OutcomeInconclusive
		gr.GateRunsNeeded = runsToClear(&r, math.Log1p(edge/100))
		gr.GateDetectablePct = beyond(edge, detectMargin(&r), !r.Metric.HigherIsBetter)
		gr.GateHint = hintFor(&r, gr.GateRunsNeeded)
		why := "interval straddles"
		if over {
			why = fmt.Sprintf("interval beyond but p not below alpha %g for", r.Options.Alpha)
		}
		gr.Message = fmt.Sprintf("%s: %s threshold %s; these %s would fail only a regression beyond %s (about 4 times in 5); %s %s",
			figures, why, t, r.unitWord(), display.Pct(gr.GateDetectablePct), gr.GateHint, r.estimateNote())
	}
	return gr
}

// GateCounts counts the rows of each outcome.
type GateCounts struct {
	Pass, Fail, Inconclusive, NotGated int
}

// Counts counts the rows of each outcome.
func (g GateResult) Counts() GateCounts {
	var c GateCounts
	for _, r := range g.Rows {
		switch r.Outcome {
		case OutcomePass:
			c.Pass++
		case OutcomeFail:
			c.Fail++
		case OutcomeInconclusive:
			c.Inconclusive++
		default:
			c.NotGated++
		}
	}
	return c
}

// ExitCode returns [ExitRegression] when a row fails, else
// [ExitInconclusive] when a gated row is inconclusive ([ExitRegression]
// with Strict), else [ExitPass].
func (g GateResult) ExitCode() int {
	c := g.Counts()
	switch {
	case c.Fail > 0:
		return ExitRegression
	case c.Inconclusive > 0 && g.Strict:
		return ExitRegression
	case c.Inconclusive > 0:
		return ExitInconclusive
	}
	return ExitPass
}

// Status names the gate's result: "pass", "fail" or "inconclusive".
func (g GateResult) Status() string {
	switch g.ExitCode() {
	case ExitPass:
		return "pass"
	case ExitInconclusive:
		return "inconclusive"
	}
	return "fail"
}
