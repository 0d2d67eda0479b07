package gate

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
)

// Exit codes of a gate, as [Document.ExitCode] holds them. 2 (bad input)
// and 130 (interrupted) are the command's.
const (
	ExitPass      = 0
	ExitFail      = 1
	ExitUndecided = 3
	// ExitMeasurement: a run failed; the pairs so far are saved, partial.
	ExitMeasurement = 4
)

// BudgetError is a budget too short for the first look.
type BudgetError struct{ Msg string }

func (e *BudgetError) Error() string { return e.Msg }

// Gate runs one gate.
type Gate struct {
	Config *Config
	Runner Runner
	// Progress receives a line after every round of pairs.
	Progress io.Writer
	// Save, when set, is called with the document after every round and
	// at the end.
	Save func(*Document) error
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

func (g *Gate) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

// Run measures and decides. The document it returns is complete, or
// partial with the reason when err is not nil (a failed run, ctx
// cancelled); it is nil when nothing was measured (the warm-up failed, the
// budget is too short).
func (g *Gate) Run(ctx context.Context, doc *Document) (*Document, error) {
	c := g.Config
	start := g.now()
	plan := c.Plan()
	doc.Kind, doc.SchemaVersion, doc.Status = Kind, SchemaVersion, StatusPartial
	doc.Settings = Settings{Target: c.Target, LatencyIters: c.LatencyIters, BandwidthSeconds: c.BandwidthSeconds,
		Method: c.Method, Alpha: c.Alpha, Looks: plan.Looks, Schedule: c.Schedule(), LookEvery: c.LookEvery, MaxPairs: c.MaxPairs,
		Confidence: plan.Confidence(), BudgetSeconds: c.Budget.Seconds()}
	for _, t := range c.Thresholds {
		doc.Settings.Thresholds = append(doc.Settings.Thresholds, t.String())
	}
	doc.Base, doc.Candidate = c.Base, c.Candidate
	doc.Rows = nil
	for _, p := range c.Points {
		t, _ := c.threshold(p)
		m := p.Metric()
		doc.Rows = append(doc.Rows, &Row{Point: p, Metric: m.Name, Unit: m.Unit, Threshold: t.String(), threshold: t, metric: m})
	}
	// fail keeps what was measured, partial; a gate that failed before
	// its first pair (in the warm-up) has no document.
	fail := func(err error) (*Document, error) {
		if len(doc.Rows[0].Base) == 0 { // the first row is measured first
			return nil, err
		}
		doc.Status, doc.Reason = StatusPartial, err.Error()
		doc.Outcome, doc.ExitCode = "", ExitMeasurement
		doc.Seconds = g.now().Sub(start).Seconds()
		g.save(doc)
		return doc, err
	}
	pairTime, err := g.warmUp(ctx, doc)
	if err != nil {
		return fail(err)
	}
	var round time.Duration
	for _, d := range pairTime {
		round += d
	}
	if first := time.Duration(c.LookEvery) * round; g.now().Sub(start)+first > c.Budget {
		return nil, &BudgetError{Msg: fmt.Sprintf("--budget %v is too short: the first look needs %d pairs of %d points, "+
			"about %v from the warm-up's runs; give at least %v, or fewer points", c.Budget, c.LookEvery, len(doc.Rows),
			first.Round(time.Second), (g.now().Sub(start)+first).Round(time.Second)+time.Second)}
	}
	looks := 0
	for pair := 1; pair <= c.MaxPairs; pair++ {
		active := g.active(doc)
		baseFirst := pair%2 == 1
		for _, i := range active {
			r := doc.Rows[i]
			t0 := g.now()
			if err := g.pair(ctx, doc, r, baseFirst); err != nil {
				return fail(err)
			}
			pairTime[i] = g.now().Sub(t0)
			r.PairSeconds += pairTime[i].Seconds()
		}
		scheduled := (pair%c.LookEvery == 0 || pair == c.MaxPairs) && c.CanDecide(pair, plan)
		// Stop before the next round when it would overrun the budget.
		var next time.Duration
		for _, i := range active {
			next += pairTime[i]
		}
		overrun := pair < c.MaxPairs && g.now().Sub(start)+next > c.Budget
		if scheduled || overrun && c.CanDecide(pair, plan) {
			looks++
			if err := g.look(doc, plan, looks); err != nil {
				return fail(err)
			}
		}
		g.progress(doc, pair, start, next)
		doc.Seconds = g.now().Sub(start).Seconds()
		g.save(doc)
		switch {
		case len(g.active(doc)) == 0:
			doc.StopReason = "every row decided"
		case overrun:
			doc.StopReason = fmt.Sprintf("the budget (%v): another round would take about %v more", c.Budget, next.Round(time.Second))
		case pair == c.MaxPairs:
			doc.StopReason = fmt.Sprintf("the most pairs (%d)", c.MaxPairs)
		default:
			continue
		}
		break
	}
	doc.Status, doc.Reason = StatusComplete, ""
	doc.Outcome, doc.ExitCode = outcome(doc)
	doc.Seconds = g.now().Sub(start).Seconds()
	g.save(doc)
	return doc, nil
}

// warmUp runs each side of every point once, unsaved: it checks that both
// sides answer and times a pair of each point.
func (g *Gate) warmUp(ctx context.Context, doc *Document) ([]time.Duration, error) {
	g.say("gate: warm-up: one run of each side of %d points", len(doc.Rows))
	pairTime := make([]time.Duration, len(doc.Rows))
	for i, r := range doc.Rows {
		for _, s := range []*Side{&g.Config.Base, &g.Config.Candidate} {
			t0 := g.now()
			m, err := g.Runner.Run(ctx, s, r.Point)
			if err != nil {
				return nil, fmt.Errorf("warm-up of %s: %w", r.Label(), err)
			}
			pairTime[i] += g.now().Sub(t0)
			doc.Runs++
			doc.RunSeconds += m.Seconds
		}
	}
	return pairTime, nil
}

// active returns the indexes of the rows not decided yet.
func (g *Gate) active(doc *Document) []int {
	var a []int
	for i, r := range doc.Rows {
		if r.Decision == compare.Undecided {
			a = append(a, i)
		}
	}
	return a
}

// pair measures one pair of a row in the given order.
func (g *Gate) pair(ctx context.Context, doc *Document, r *Row, baseFirst bool) error {
	sides := []*Side{&g.Config.Base, &g.Config.Candidate}
	if !baseFirst {
		slices.Reverse(sides)
	}
	var got [2]Measurement
	for _, s := range sides {
		m, err := g.Runner.Run(ctx, s, r.Point)
		if err != nil {
			return fmt.Errorf("%s, pair %d: %w", r.Label(), len(r.Base)+1, err)
		}
		doc.Runs++
		doc.RunSeconds += m.Seconds
		k := 0
		if s == &g.Config.Candidate {
			k = 1
		}
		got[k] = m
	}
	r.Base = append(r.Base, got[0].Value)
	r.Candidate = append(r.Candidate, got[1].Value)
	r.BaseFirst = append(r.BaseFirst, baseFirst)
	for _, m := range got {
		if m.Clean != nil && !*m.Clean {
			r.Unclean++
		}
		if m.AtTick {
			r.AtTick++
		}
	}
	return nil
}

// look decides every undecided row from its pairs.
func (g *Gate) look(doc *Document, plan compare.Plan, n int) error {
	if n > plan.Looks { // cannot happen: the loop stops at MaxPairs
		return fmt.Errorf("look %d of a plan of %d", n, plan.Looks)
	}
	for _, r := range doc.Rows {
		if r.Decision != compare.Undecided {
			continue
		}
		s, err := Change(g.Config.Method, r.Base, r.Candidate, plan.Confidence())
		if err != nil {
			return fmt.Errorf("%s: %w", r.Label(), err)
		}
		d := compare.Decide(s, r.threshold)
		lo, hi := compare.LoBound(s.LoPct), compare.HiBound(s.HiPct)
		r.Looks = append(r.Looks, Look{Pairs: len(r.Base), EstimatePct: s.EstimatePct, LoPct: lo, HiPct: hi, Decision: d})
		r.Decision, r.Pairs = d, len(r.Base)
		r.EstimatePct, r.LoPct, r.HiPct = s.EstimatePct, lo, hi
		r.BaseMedian, r.CandidateMedian = compare.Median(r.Base), compare.Median(r.Candidate)
		r.DetectablePct = 0
		if d == compare.Undecided {
			r.DetectablePct = compare.HiBound(compare.DetectablePct(s, r.threshold))
		}
	}
	return nil
}

// Change is a row's change by the method.
func Change(m Method, base, cand []float64, confidence float64) (compare.Shift, error) {
	if m == Unpaired {
		return compare.ShiftInterval(base, cand, confidence)
	}
	return compare.PairedShift(base, cand, confidence)
}

// outcome is the gate's: fail when a row fails, else undecided when a row
// is, else pass.
func outcome(doc *Document) (string, int) {
	undecided := false
	for _, r := range doc.Rows {
		switch r.Decision {
		case compare.Fail:
			return "fail", ExitFail
		case compare.Undecided:
			undecided = true
		}
	}
	if undecided {
		return "undecided", ExitUndecided
	}
	return "pass", ExitPass
}

func (g *Gate) progress(doc *Document, pair int, start time.Time, next time.Duration) {
	decided := len(doc.Rows) - len(g.active(doc))
	left := "done"
	if decided < len(doc.Rows) && pair < g.Config.MaxPairs {
		// The rows still measured need at most MaxPairs - pair more rounds.
		most := time.Duration(g.Config.MaxPairs-pair) * next
		most = min(most, g.Config.Budget-g.now().Sub(start))
		left = fmt.Sprintf("at most %v left", max(most, 0).Round(time.Second))
	}
	g.say("gate: pair %d of at most %d: %d of %d rows decided, %v elapsed, %s",
		pair, g.Config.MaxPairs, decided, len(doc.Rows), g.now().Sub(start).Round(time.Second), left)
}

func (g *Gate) say(format string, a ...any) {
	if g.Progress != nil {
		fmt.Fprintf(g.Progress, format+"\n", a...)
	}
}

func (g *Gate) save(doc *Document) {
	if g.Save == nil {
		return
	}
	if err := g.Save(doc); err != nil {
		g.say("gate: could not save the document: %v", err)
	}
}
