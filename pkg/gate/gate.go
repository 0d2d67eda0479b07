package gate

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/document"
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

	load0 loadMark  // the machine's times at the start
	began time.Time // the start, which the pairs' times count from
	// overlap is the runner's, when its pairs overlap (pairsAs).
	overlap PairRunner
}

// pairsAs records in doc how the pairs will be made, and returns the
// runner that overlaps them, or nil.
func (g *Gate) pairsAs(doc *Document) PairRunner {
	doc.PairsAs, doc.PairsAsWhy = PairsInTurn, "the runner makes one run at a time"
	pr, ok := g.Runner.(PairRunner)
	if !ok {
		return nil
	}
	if ok, why := pr.Overlaps(); !ok {
		doc.PairsAsWhy = why
		return nil
	}
	doc.PairsAs, doc.PairsAsWhy = PairsOverlapped, ""
	return pr
}

// pids are the processes the runner keeps running (its workers), whose
// CPU time is the gate's own.
func (g *Gate) pids() []int {
	if p, ok := g.Runner.(interface{ PIDs() []int }); ok {
		return p.PIDs()
	}
	return nil
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
//
// It measures in rounds, a pair of every undecided point a round, for as
// long as a point is undecided and another round fits in the budget (or
// until MaxPairs): the budget, not a count of pairs, ends a gate that
// cannot decide. The points are looked at on the schedule; the round after
// which no other fits is the final look, which spends the rest of the
// false-alarm budget (compare.Spending).
func (g *Gate) Run(ctx context.Context, doc *Document) (*Document, error) {
	c := g.Config
	start := g.now()
	g.began = start
	g.load0 = markLoad(g.pids())
	doc.Kind, doc.SchemaVersion, doc.Status = document.KindGate, SchemaVersion, StatusPartial
	doc.Settings = Settings{Target: c.Target, LatencyIters: c.LatencyIters, BandwidthSeconds: c.BandwidthSeconds,
		Method: c.Method, Alpha: c.Alpha, Schedule: c.Schedule(), FirstLook: c.FirstLook, LookGrowth: c.LookGrowth,
		MaxPairs: c.MaxPairs, BudgetSeconds: c.Budget.Seconds(), WorkerRounds: c.WorkerRounds}
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
	g.overlap = g.pairsAs(doc)
	pairTime, err := g.warmUp(ctx, doc)
	if err != nil {
		return fail(err)
	}
	// A budget too short to reach a decisive look is refused after the
	// first round, judged by its own time, renewal of the workers
	// included. The warm-up's runs are slower (they start the workers and
	// read the program in: CI of 2026-11-29 refused a 5-minute A/A gate
	// from them), so what they say is only a note.
	if warm := g.tooShort(pairTime, 0, 0, "the warm-up's runs"); warm != nil {
		g.say("gate: %v; judging again after the first round", warm)
	}
	// The horizon, from the first round's times: a warm-up run also
	// starts its side's worker and is slower than the rest.
	spend := compare.Spending{Alpha: c.Alpha, Rows: len(c.Points)}
	sched := c.Schedule()
	noted := false
	var renewTime time.Duration
	for pair := 1; ; pair++ {
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
		if err := g.renew(ctx, doc, pair, &renewTime); err != nil {
			return fail(err)
		}
		// The next round, of the rows still undecided, must fit.
		next := renewTime
		for _, i := range active {
			next += pairTime[i]
		}
		overrun := g.now().Sub(start)+next > c.Budget
		final := overrun || pair == c.MaxPairs
		if pair == 1 {
			if err := g.tooShort(pairTime, renewTime, 1, "the first round's runs"); err != nil {
				return nil, err
			}
			spend.Horizon = min(c.MaxPairs, max(c.FirstLook, 1+int((c.Budget-g.now().Sub(start))/max(next, 1))))
			doc.Settings.Horizon = spend.Horizon
		}
		if final || slices.Contains(sched, pair) {
			end := pair // the pairs by the budget's end, if every row stays undecided
			if !final && next > 0 {
				end = min(c.MaxPairs, pair+int((c.Budget-g.now().Sub(start))/next))
			}
			if err := g.look(doc, spend, final, end); err != nil {
				return fail(err)
			}
			if !noted {
				noted = g.noteSpread(doc, end)
			}
		}
		g.progress(doc, pair, start, next)
		doc.Seconds = g.now().Sub(start).Seconds()
		g.save(doc)
		switch {
		case len(g.active(doc)) == 0:
			doc.StopReason = "every row decided"
		case pair == c.MaxPairs:
			doc.StopReason = fmt.Sprintf("the most pairs (%d)", c.MaxPairs)
		case overrun:
			doc.StopReason = fmt.Sprintf("the budget (%v): another round would take about %v more", c.Budget, next.Round(time.Second))
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

// tooShort is a BudgetError when what is left of the budget cannot hold
// the pairs a look needs to decide beyond the done ones, at this round
// time (the rows' pair times and a renewal of the workers), judged from
// what; nil when it can.
func (g *Gate) tooShort(pairTime []time.Duration, renew time.Duration, done int, from string) error {
	c := g.Config
	round := renew
	for _, d := range pairTime {
		round += d
	}
	need := c.decisivePairs()
	elapsed := g.now().Sub(g.began)
	first := time.Duration(need-done) * round
	if first <= c.Budget-elapsed {
		return nil
	}
	return &BudgetError{Msg: fmt.Sprintf("--budget %v is too short: a look that can decide needs %d pairs of %d points, "+
		"about %v from %s; give at least %v, or fewer points", c.Budget, need, len(c.Points),
		(time.Duration(need) * round).Round(time.Second), from, (elapsed+first).Round(time.Second)+time.Second)}
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
	at := g.now().Sub(g.began).Seconds()
	ms, err := g.runPair(ctx, [2]*Side{sides[0], sides[1]}, r.Point)
	if err != nil {
		return fmt.Errorf("%s, pair %d: %w", r.Label(), len(r.Base)+1, err)
	}
	for j, s := range sides {
		m := ms[j]
		doc.Runs++
		doc.RunSeconds += m.Seconds
		k, doc0 := 0, &doc.Base
		if s == &g.Config.Candidate {
			k, doc0 = 1, &doc.Candidate
		}
		got[k] = m
		// A TCP run names no provider: an RDMA run's, which does, wins.
		if doc0.RDMACore == "" || strings.HasPrefix(m.RDMACore, doc0.RDMACore+", ") {
			doc0.RDMACore = m.RDMACore
		}
		if doc0.Device == "" {
			doc0.Device = m.Device
		}
	}
	r.Base = append(r.Base, got[0].Value)
	r.Candidate = append(r.Candidate, got[1].Value)
	r.BaseFirst = append(r.BaseFirst, baseFirst)
	r.BaseClean = append(r.BaseClean, got[0].Clean)
	r.CandidateClean = append(r.CandidateClean, got[1].Clean)
	r.PairAtSeconds = append(r.PairAtSeconds, at)
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

// runPair measures a run of p on each side, sides[0] first: overlapped
// where the runner can, else one whole run after the other.
func (g *Gate) runPair(ctx context.Context, sides [2]*Side, p Point) ([2]Measurement, error) {
	if g.overlap != nil {
		return g.overlap.Pair(ctx, sides, p)
	}
	var got [2]Measurement
	for i, s := range sides {
		m, err := g.Runner.Run(ctx, s, p)
		if err != nil {
			return got, err
		}
		got[i] = m
	}
	return got, nil
}

// look decides every undecided row from its pairs, spending what the
// spending allows of each row's share; a final look spends all the rest.
// A row whose test cannot reject at what it may spend is not looked at.
func (g *Gate) look(doc *Document, spend compare.Spending, final bool, end int) error {
	for _, r := range doc.Rows {
		if r.Decision != compare.Undecided {
			continue
		}
		n := len(r.Base)
		if sp, ok := compare.Spread(r.Base, r.Candidate); ok {
			r.PairP10Pct, r.PairP90Pct = sp.P10Pct, sp.P90Pct
			r.ReachPct = compare.HiBound(compare.Reach(sp, end, spend.Share()-r.AlphaSpent, r.threshold))
		}
		a := spend.Available(n, r.AlphaSpent, final)
		if !g.Config.CanDecide(n, a) {
			continue
		}
		conf := compare.ConfidenceOf(a)
		s, err := Change(g.Config.Method, r.Base, r.Candidate, conf)
		if err != nil {
			return fmt.Errorf("%s: %w", r.Label(), err)
		}
		r.AlphaSpent += a
		d := compare.Decide(s, r.threshold)
		lo, hi := compare.LoBound(s.LoPct), compare.HiBound(s.HiPct)
		r.Looks = append(r.Looks, Look{Pairs: n, Alpha: a, Confidence: conf, Final: final,
			EstimatePct: s.EstimatePct, LoPct: lo, HiPct: hi, Decision: d})
		r.Decision, r.Pairs = d, n
		r.EstimatePct, r.LoPct, r.HiPct = s.EstimatePct, lo, hi
		r.BaseMedian, r.CandidateMedian = compare.Median(r.Base), compare.Median(r.Candidate)
		r.DetectablePct = 0
		if d == compare.Undecided {
			r.DetectablePct = compare.HiBound(compare.DetectablePct(s, r.threshold))
		}
	}
	return nil
}

// renew gives each side a fresh worker every WorkerRounds rounds (when the
// runner keeps workers), timing it into *took and the document's
// RenewSeconds.
func (g *Gate) renew(ctx context.Context, doc *Document, pair int, took *time.Duration) error {
	r, ok := g.Runner.(interface{ Renew(context.Context) error })
	if !ok || g.Config.WorkerRounds <= 0 || pair%g.Config.WorkerRounds != 0 {
		return nil
	}
	t0 := g.now()
	err := r.Renew(ctx)
	*took = g.now().Sub(t0)
	doc.RenewSeconds += took.Seconds()
	return err
}

// noteSpread says, once the rows have a spread, how noisy the pairs are
// and what the budget can decide, before the long part of the gate.
func (g *Gate) noteSpread(doc *Document, end int) bool {
	said := false
	for _, r := range doc.Rows {
		if r.Decision != compare.Undecided || len(r.Base) < 2 {
			continue
		}
		said = true
		g.say("gate: %s %s: %s; by the end of the budget (about %d pairs) %s", r.Label(), r.Metric, spreadText(r), end, reachText(r))
	}
	return said
}

// estimate is how [Change] estimates with m, as compare.MedianNote names
// it.
func (m Method) estimate() compare.Estimate {
	if m == Unpaired {
		return compare.EstimateRuns
	}
	return compare.EstimatePairs
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
		most := min(time.Duration(g.Config.MaxPairs-pair)*next, g.Config.Budget-g.now().Sub(start))
		left = fmt.Sprintf("at most %v left", max(most, 0).Round(time.Second))
	}
	g.say("gate: pair %d: %d of %d rows decided, %v elapsed, %s",
		pair, decided, len(doc.Rows), g.now().Sub(start).Round(time.Second), left)
}

func (g *Gate) say(format string, a ...any) {
	if g.Progress != nil {
		fmt.Fprintf(g.Progress, format+"\n", a...)
	}
}

func (g *Gate) save(doc *Document) {
	doc.Load = loadBetween(g.load0, markLoad(g.pids()))
	if g.Save == nil {
		return
	}
	if err := g.Save(doc); err != nil {
		g.say("gate: could not save the document: %v", err)
	}
}
