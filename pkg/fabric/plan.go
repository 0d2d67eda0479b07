package fabric

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// PlanSummary is what a schedule costs: rounds run one after another, the
// pairs of a round at the same time.
type PlanSummary struct {
	// Hosts is the number of ranks the schedule covers (largest rank + 1).
	Hosts int `json:"hosts"`
	// Rounds is the number of rounds.
	Rounds int `json:"rounds"`
	// Pairs is the number of pairs measured, over all rounds.
	Pairs int `json:"pairs"`
	// MaxPairsPerRound is the largest number of pairs in one round.
	MaxPairsPerRound int `json:"max_pairs_per_round"`
	// PerPair is the time one pair's measurement takes (every workload of
	// it, set-up included).
	PerPair time.Duration `json:"per_pair_ns"`
	// Estimated is Rounds x PerPair: the sweep's duration when every
	// pair takes PerPair, without the per-round barrier's few
	// milliseconds.
	Estimated time.Duration `json:"estimated_ns"`
}

// Plan summarises rounds for a measurement time of perPair per pair.
func Plan(rounds []Round, perPair time.Duration) PlanSummary {
	return planOf(len(rounds), func(i int) Round { return rounds[i] }, perPair)
}

// PlanFor summarises pattern's schedule for n ranks, built a round at a
// time.
func PlanFor(pattern string, n int, perPair time.Duration) (PlanSummary, error) {
	count, at, err := rounds(pattern, n)
	if err != nil {
		return PlanSummary{}, err
	}
	return planOf(count, at, perPair), nil
}

// planOf summarises count rounds, round i being at(i).
func planOf(count int, at func(int) Round, perPair time.Duration) PlanSummary {
	p := PlanSummary{Rounds: count, PerPair: perPair}
	for i := range count {
		r := at(i)
		p.Pairs += len(r)
		p.MaxPairsPerRound = max(p.MaxPairsPerRound, len(r))
		for _, pr := range r {
			p.Hosts = max(p.Hosts, pr.Src+1, pr.Dst+1)
		}
	}
	p.Estimated = time.Duration(p.Rounds) * perPair
	return p
}

// String is the summary in one line, such as "16 hosts: 30 rounds, 240
// pairs (at most 8 a round), 30 x 10s = 5m0s".
func (p PlanSummary) String() string {
	return fmt.Sprintf("%d hosts: %d rounds, %d pairs (at most %d a round), %d x %s = %s",
		p.Hosts, p.Rounds, p.Pairs, p.MaxPairsPerRound, p.Rounds, p.PerPair, p.Estimated)
}

// planWidth bounds a line of --plan's rounds: a round of many pairs
// continues on lines of its own, indented under its first pair.
const planWidth = 100

// WritePlan writes what --plan shows: the pattern and summary, then the
// first maxRounds rounds as "round 1: 0->3 1->2" lines (all of them when
// maxRounds < 0), then how many were left out.
func WritePlan(w io.Writer, pattern string, rounds []Round, perPair time.Duration, maxRounds int) error {
	ew := &display.ErrWriter{W: w}
	ew.Printf("pattern %s, %s\n", pattern, Plan(rounds, perPair))
	shown := len(rounds)
	if maxRounds >= 0 && maxRounds < shown {
		shown = maxRounds
	}
	for i, r := range rounds[:shown] {
		head := fmt.Sprintf("round %d:", i+1)
		line := head
		for _, p := range r {
			pair := fmt.Sprintf(" %d->%d", p.Src, p.Dst)
			if len(line)+len(pair) > planWidth && len(line) > len(head) {
				ew.Printf("%s\n", line)
				line = strings.Repeat(" ", len(head))
			}
			line += pair
		}
		ew.Printf("%s\n", line)
	}
	if shown < len(rounds) {
		ew.Printf("... %d more rounds\n", len(rounds)-shown)
	}
	if ew.Err != nil {
		return fmt.Errorf("write plan: %w", ew.Err)
	}
	return nil
}

// Bound is the summary in one line as a bound on the sweep's time, such
// as "6 rounds, 12 pairs (at most 2 a round), at most 6 x 1m0s = 6m0s".
func (p PlanSummary) Bound() string {
	return fmt.Sprintf("%d rounds, %d pairs (at most %d a round), at most %d x %s = %s",
		p.Rounds, p.Pairs, p.MaxPairsPerRound, p.Rounds, p.PerPair, p.Estimated)
}

// PlanSetup is what a plan counts for setting up one point (device,
// queue pairs, connection) beside its duration.
const PlanSetup = time.Second

// A plan of at most planAllRounds rounds lists every round, a longer one
// the first planShownRounds.
const (
	planAllRounds   = 32
	planShownRounds = 3
)

// PairTime is the time a plan counts for one pair, and where it comes
// from (a phrase naming the flags).
type PairTime struct {
	Time time.Duration
	How  string
}

// EstimatePairTime is the time one pair takes: pairTime when given, else
// each of the workloads' duration (-D) plus PlanSetup when given, else
// the pair timeout, the most a pair may take.
func EstimatePairTime(pairTime, duration time.Duration, workloads int, pairTimeout time.Duration) PairTime {
	switch {
	case pairTime > 0:
		return PairTime{pairTime, "--pair-time"}
	case duration > 0:
		what := fmt.Sprintf("%d workloads x ", workloads)
		if workloads == 1 {
			what = "1 workload: "
		}
		return PairTime{time.Duration(workloads) * (duration + PlanSetup),
			fmt.Sprintf("%s(-D %s + %s of set-up); give --pair-time to change", what, duration, PlanSetup)}
	}
	return PairTime{pairTimeout, "--pair-timeout, the most a pair may take; give -D or --pair-time for an estimate"}
}

// WriteSweepPlan writes what --plan prints: the time a pair and where it
// comes from, then the plan of WritePlan with every round of a short
// schedule, the first few of a long one.
func WriteSweepPlan(w io.Writer, pattern string, rounds []Round, pt PairTime) error {
	if _, err := fmt.Fprintf(w, "per pair: %s (%s)\n", pt.Time, pt.How); err != nil {
		return fmt.Errorf("write plan: %w", err)
	}
	shown := -1
	if len(rounds) > planAllRounds {
		shown = planShownRounds
	}
	return WritePlan(w, pattern, rounds, pt.Time, shown)
}
