package fabric

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// Defaults for a zero RecheckOptions field.
const (
	DefaultRecheckAlpha     = 0.01
	DefaultRecheckLookEvery = 6
	DefaultRecheckMaxPairs  = 24
	// DefaultRecheckTime bounds the whole re-measurement: at a pair of
	// two workloads and -D 5s (about 13 s a measurement, 26 s a pair), 24
	// pairs of one suspect would take over 10 minutes.
	DefaultRecheckTime = 5 * time.Minute
)

// RecheckOptions say how rank 0 re-measures the suspects after the sweep.
// Zero fields mean the defaults.
type RecheckOptions struct {
	// Alpha is the chance, at most, that a fabric whose pairs are all
	// alike ends with a confirmed outlier; it is split over the suspects
	// and their looks (compare.Plan).
	Alpha float64
	// LookEvery is the number of pairs (the suspect and its reference
	// measured once each) between two looks at a suspect; MaxPairs the
	// most pairs a suspect gets (its last look is at MaxPairs).
	LookEvery, MaxPairs int
	// Time bounds the re-measurement of all the suspects: each suspect,
	// in turn, gets an equal share of what is left of it, and stops
	// before a pair that would overrun its share (judged by its longest
	// pair so far), undecided unless a look decided.
	Time time.Duration
}

func (o RecheckOptions) resolved() RecheckOptions {
	if o.Alpha == 0 {
		o.Alpha = DefaultRecheckAlpha
	}
	if o.LookEvery == 0 {
		o.LookEvery = DefaultRecheckLookEvery
	}
	if o.MaxPairs == 0 {
		o.MaxPairs = DefaultRecheckMaxPairs
	}
	if o.Time == 0 {
		o.Time = DefaultRecheckTime
	}
	return o
}

// check says what is wrong with the options.
func (o RecheckOptions) check() error {
	o = o.resolved()
	switch {
	case o.LookEvery < 2:
		return fmt.Errorf("re-measurement: %d pairs between looks: want at least 2", o.LookEvery)
	case o.MaxPairs < o.LookEvery || o.MaxPairs > 1000:
		return fmt.Errorf("re-measurement: at most %d pairs a suspect: want %d (a look) to 1000", o.MaxPairs, o.LookEvery)
	case o.Time < time.Second:
		return fmt.Errorf("re-measurement: at most %s in all: want at least 1s", o.Time)
	}
	if err := (compare.Plan{Alpha: o.Alpha, Rows: 1, Looks: 1}).Check(); err != nil {
		return fmt.Errorf("re-measurement: %w", err)
	}
	return nil
}

// plan is the false-alarm budget for n suspects.
func (o RecheckOptions) plan(n int) compare.Plan {
	return compare.Plan{Alpha: o.Alpha, Rows: n, Looks: (o.MaxPairs + o.LookEvery - 1) / o.LookEvery}
}

// RecheckSettings are how the suspects were re-measured, as applied.
type RecheckSettings struct {
	Alpha     float64 `json:"alpha"`
	LookEvery int     `json:"look_every"`
	MaxPairs  int     `json:"max_pairs"`
	// TimeNS bounds the whole re-measurement (RecheckOptions.Time).
	TimeNS int64 `json:"time_ns"`
	// Looks is the most looks at a suspect.
	Looks int `json:"looks"`
	// Confidence is the two-sided confidence of every interval: Alpha
	// split over the suspects and their looks.
	Confidence float64 `json:"confidence"`
}

// Recheck is a suspect's re-measurement: the suspect pair and its
// reference pair measured one after the other, the order alternated (A B,
// then B A), one pair at a time with the other ranks idle, until the
// paired interval of the change from the reference to the suspect decides
// (compare.PairedShift, compare.Decide with the outlier threshold) or the
// most pairs are measured.
type Recheck struct {
	// Pairs is the number of pairs measured: the re-measurements it took.
	Pairs int `json:"pairs"`
	// Suspect and Reference are each pair's figures; SuspectFirst says
	// whether the suspect ran first in that pair.
	Suspect      []float64 `json:"suspect"`
	Reference    []float64 `json:"reference"`
	SuspectFirst []bool    `json:"suspect_first"`
	// Looks is the number of looks taken.
	Looks int `json:"looks"`
	// ElapsedNS is how long the re-measurement took; ShareNS the time
	// it was given (its share of RecheckOptions.Time); TimeUp says that
	// the share ran out before a decision and before MaxPairs.
	ElapsedNS int64 `json:"elapsed_ns"`
	ShareNS   int64 `json:"share_ns"`
	TimeUp    bool  `json:"time_up,omitempty"`
	// The change from the reference to the suspect, in percent, at the
	// last look (+10: the suspect's figures are 10% larger); LoPct and
	// HiPct are infinite when the pairs are too few for the confidence.
	EstimatePct float64         `json:"estimate_pct"`
	LoPct       compare.LoBound `json:"lo_pct"`
	HiPct       compare.HiBound `json:"hi_pct"`
	// Decision is fail (an outlier), pass (cleared) or undecided.
	Decision compare.Decision `json:"decision"`
	// Failed is the pair (the suspect or the reference) whose
	// measurement failed and ended the re-measurement before a decision,
	// and Error why; nil and "" when none did.
	Failed *Pair  `json:"failed,omitempty"`
	Error  string `json:"error,omitempty"`
	// SuspectUnclean and ReferenceUnclean count the pairs (of Pairs)
	// in which the suspect's or the reference's run of the metric's
	// workload was not clean, as the port counters saw it (Caveat);
	// Counters is the first such verdict of the suspect's. Zero without
	// the pairs' results (--figures-only).
	SuspectUnclean   int    `json:"suspect_unclean,omitempty"`
	ReferenceUnclean int    `json:"reference_unclean,omitempty"`
	Counters         string `json:"counters,omitempty"`
}

// Finding is what the re-measurement found of the suspect, in words: outlier, cleared, undecided,
// or not re-measured.
func (s *Suspect) Finding() string {
	if s.Recheck == nil {
		return "not re-measured"
	}
	switch s.Recheck.Decision {
	case compare.Fail:
		return "outlier"
	case compare.Pass:
		return "cleared"
	}
	return "undecided"
}

// findSuspects puts the sweep's suspects in the document.
func (sw *sweeper) findSuspects() error {
	sw.doc.ThresholdPct = sw.cfg.Outliers.threshold()
	s, err := FindSuspects(sw.doc, sw.cfg.Outliers)
	sw.doc.Suspects = s
	return err
}

// recheck re-measures every suspect beside its reference pair, one
// suspect after the other; its rounds are numbered from num+1. It fails
// only when ctx is done or the suspects cannot be found.
func (sw *sweeper) recheck(ctx context.Context, num int) error {
	if sw.doc.Probe { // single samples: nothing to compare
		return nil
	}
	if err := sw.findSuspects(); err != nil || len(sw.doc.Suspects) == 0 {
		return err
	}
	o := sw.cfg.Recheck.resolved()
	plan := o.plan(len(sw.doc.Suspects))
	sw.doc.Recheck = &RecheckSettings{Alpha: o.Alpha, LookEvery: o.LookEvery, MaxPairs: o.MaxPairs,
		TimeNS: o.Time.Nanoseconds(), Looks: plan.Looks, Confidence: plan.Confidence()}
	if w := sw.cfg.Progress; w != nil {
		fmt.Fprintf(w, "re-measuring %s, each alternately with its reference pair, one pair at a time, at most %d times each and %s in all\n",
			plural(len(sw.doc.Suspects), "suspect"), o.MaxPairs, o.Time)
	}
	deadline := time.Now().Add(o.Time)
	for i := range sw.doc.Suspects {
		s := &sw.doc.Suspects[i]
		dir, err := sw.cfg.Outliers.direction(s.Metric)
		if err != nil {
			return err
		}
		th := compare.Threshold{Metric: metric.Metric{Name: s.Metric, HigherIsBetter: dir == HigherIsBetter},
			LimitPct: sw.doc.ThresholdPct}
		share := max(0, time.Until(deadline)) / time.Duration(len(sw.doc.Suspects)-i) // 0 once a first pair overran
		if err := sw.recheckOne(ctx, s, th, o, plan, share, &num); err != nil {
			return err
		}
		if w := sw.cfg.Progress; w != nil {
			writeRecheckProgress(w, i+1, len(sw.doc.Suspects), s, time.Since(sw.doc.StartedAt))
		}
	}
	return nil
}

// recheckOne re-measures one suspect: pairs of the suspect and the
// reference, the suspect first in odd pairs, a look every o.LookEvery
// pairs, until a look decides or o.MaxPairs, or until the next pair would
// overrun share (judged by the longest pair so far, its look included;
// the first pair is always measured). A pair that fails, or the time running out, ends it with a
// last look at the pairs so far (still within the plan's looks).
func (sw *sweeper) recheckOne(ctx context.Context, s *Suspect, th compare.Threshold, o RecheckOptions, plan compare.Plan, share time.Duration, num *int) error {
	r := &Recheck{LoPct: compare.LoBound(math.Inf(-1)), HiPct: compare.HiBound(math.Inf(1)), ShareNS: share.Nanoseconds()}
	s.Recheck = r
	began := time.Now()
	defer func() { r.ElapsedNS = time.Since(began).Nanoseconds() }()
	sus, ref := Pair{Src: s.Src.Rank, Dst: s.Dst.Rank}, Pair{Src: s.Reference.Src.Rank, Dst: s.Reference.Dst.Rank}
	workload, _, _ := strings.Cut(s.Metric, ".")
	looked := 0               // pairs at the last look
	var longest time.Duration // the longest pair so far, its look included
	for n := 1; n <= o.MaxPairs && r.Error == ""; n++ {
		if n > 1 && time.Since(began)+longest > share {
			r.TimeUp = true
			break
		}
		pairBegan := time.Now()
		first := n%2 == 1
		order := [2]Pair{sus, ref}
		if !first {
			order = [2]Pair{ref, sus}
		}
		var got [2]float64
		var unclean [2]bool
		counters := ""
		for _, p := range order {
			*num++
			outs, err := sw.measure(ctx, *num, Round{p})
			if err != nil {
				return err
			}
			v, err := recheckFigure(&outs[0], s.Metric)
			if err != nil {
				r.Failed, r.Error = &p, fmt.Sprintf("%d->%d: %v", p.Src, p.Dst, err)
				break
			}
			u, what := pairCaveat(&outs[0], workload)
			if p == sus {
				got[0], unclean[0], counters = v, u, what
			} else {
				got[1], unclean[1] = v, u
			}
		}
		if r.Error != "" {
			break
		}
		if unclean[0] {
			r.SuspectUnclean++
			if r.Counters == "" {
				r.Counters = counters
			}
		}
		if unclean[1] {
			r.ReferenceUnclean++
		}
		r.Suspect, r.Reference = append(r.Suspect, got[0]), append(r.Reference, got[1])
		r.SuspectFirst = append(r.SuspectFirst, first)
		r.Pairs = n
		if n%o.LookEvery == 0 || n == o.MaxPairs {
			r.look(th, plan.Confidence())
			looked = n
			if r.Decision != compare.Undecided {
				return nil
			}
		}
		longest = max(longest, time.Since(pairBegan))
	}
	if r.Pairs > looked {
		r.look(th, plan.Confidence()) // a failed pair or the time ended it: the pairs since the last look
	}
	return nil
}

// look decides from the pairs so far.
func (r *Recheck) look(th compare.Threshold, confidence float64) {
	sh, err := compare.PairedShift(r.Reference, r.Suspect, confidence)
	if err != nil { // cannot happen: recheckFigure keeps positive figures
		r.Error = err.Error()
		return
	}
	r.Looks++
	r.EstimatePct, r.LoPct, r.HiPct = sh.EstimatePct, compare.LoBound(sh.LoPct), compare.HiBound(sh.HiPct)
	r.Decision = compare.Decide(sh, th)
}

// recheckFigure is a re-measured pair's figure of metric, positive.
func recheckFigure(o *PairOutcome, metric string) (float64, error) {
	if !o.OK() {
		return 0, errors.New(o.Error)
	}
	v, ok := o.Figures.Get(metric)
	switch {
	case !ok:
		return 0, fmt.Errorf("no %s figure", metric)
	case !(v > 0):
		return 0, fmt.Errorf("%s is %v: want a positive figure", metric, v)
	}
	return v, nil
}

// writeRecheckProgress writes a suspect's line once decided: "suspect 2
// of 7: write_lat.p50_us 0->3: re-measured 12 times beside 1->2: +0.8%
// [-3.1%, +4.0%]: cleared; 1m2.3s so far". Write errors are ignored.
func writeRecheckProgress(w io.Writer, num, total int, s *Suspect, elapsed time.Duration) {
	fmt.Fprintf(w, "suspect %d of %d: %s %d->%d: %s: %s; %s so far\n", num, total, s.Metric, s.Src.Rank, s.Dst.Rank,
		recheckText(s), s.Finding(), elapsed.Round(100*time.Millisecond))
}

// recheckText says how a suspect's re-measurement went: "re-measured 12
// times beside 1->2: +0.8% [-3.1%, +4.0%]", the change from the reference
// to the suspect and its interval.
func recheckText(s *Suspect) string {
	r := s.Recheck
	if r == nil {
		return "not re-measured"
	}
	t := fmt.Sprintf("re-measured %s beside %d->%d", times(r.Pairs), s.Reference.Src.Rank, s.Reference.Dst.Rank)
	if r.TimeUp {
		t += fmt.Sprintf(" until its %s share of the time ran out", time.Duration(r.ShareNS).Round(100*time.Millisecond))
	}
	if r.Looks > 0 {
		t += ": " + display.Pct(r.EstimatePct) + " " + display.Interval(float64(r.LoPct), float64(r.HiPct))
	}
	if r.Error != "" {
		t += ", then " + r.Error
	}
	if r.SuspectUnclean > 0 {
		t += fmt.Sprintf("; %d of %d of the suspect's re-measurements %s (counters: %s)", r.SuspectUnclean, r.Pairs, display.UncleanWhat, r.Counters)
	}
	if r.ReferenceUnclean > 0 {
		t += fmt.Sprintf("; %d of %d of the reference's %s", r.ReferenceUnclean, r.Pairs, display.UncleanWhat)
	}
	return t
}

// times is "once", "12 times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
