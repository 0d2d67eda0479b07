package fabric

import (
	"fmt"
	"io"
	"slices"
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
	// Estimated is Rounds x (PerPair + Sync): the sweep's duration when
	// every pair takes PerPair.
	Estimated time.Duration `json:"estimated_ns"`
	// Sync is rank 0's synchronisation a round (assigning the round,
	// collecting its pairs, the barrier): the time a rank's share of it
	// takes times Hosts.
	Sync time.Duration `json:"sync_per_round_ns"`
}

// DefaultPlanSync is the synchronisation a plan counts a rank a round:
// rank 0 sends each rank its part and waits for its done, O(ranks)
// messages a round. Measured on this project's 2-core host, every rank
// on it, tcp_lat -e -n 1, all pairs (2026-11-29,
// docs/investigations/2026-11-29-fabric-round-overhead.md): 1 ms a round
// at 4 and 8 ranks, 2 at 16, 4 at 32, 7 at 64, about 0.1 ms a rank. On a
// cluster rank 0 has a host to itself; not measured there.
const DefaultPlanSync = 100 * time.Microsecond

// Plan summarises rounds for a measurement time of perPair per pair and
// a synchronisation of syncPerRank a rank a round.
func Plan(rounds []Round, perPair, syncPerRank time.Duration) PlanSummary {
	return planOf(len(rounds), func(i int) Round { return rounds[i] }, perPair, syncPerRank)
}

// PlanFor summarises pattern's schedule for n ranks, built a round at a
// time.
func PlanFor(pattern string, n int, perPair, syncPerRank time.Duration) (PlanSummary, error) {
	count, at, err := rounds(pattern, n)
	if err != nil {
		return PlanSummary{}, err
	}
	return planOf(count, at, perPair, syncPerRank), nil
}

// planOf summarises count rounds, round i being at(i).
func planOf(count int, at func(int) Round, perPair, syncPerRank time.Duration) PlanSummary {
	p := PlanSummary{Rounds: count, PerPair: perPair}
	for i := range count {
		r := at(i)
		p.Pairs += len(r)
		p.MaxPairsPerRound = max(p.MaxPairsPerRound, len(r))
		for _, pr := range r {
			p.Hosts = max(p.Hosts, pr.Src+1, pr.Dst+1)
		}
	}
	p.Sync = time.Duration(p.Hosts) * syncPerRank
	p.Estimated = time.Duration(p.Rounds) * (perPair + p.Sync)
	return p
}

// String is the summary in one line, such as "16 hosts: 30 rounds, 240
// pairs (at most 8 a round), 30 x (10s + 1.6ms of synchronisation) =
// 5m0.048s".
func (p PlanSummary) String() string {
	return fmt.Sprintf("%d hosts: %d rounds, %d pairs (at most %d a round), %s",
		p.Hosts, p.Rounds, p.Pairs, p.MaxPairsPerRound, p.product())
}

// product is "ROUNDS x (PAIR + SYNC of synchronisation) = TOTAL", the
// parenthesis left out when no synchronisation is counted.
func (p PlanSummary) product() string {
	if p.Sync == 0 {
		return fmt.Sprintf("%d x %s = %s", p.Rounds, p.PerPair, p.Estimated)
	}
	return fmt.Sprintf("%d x (%s + %s of synchronisation) = %s", p.Rounds, p.PerPair, p.Sync, p.Estimated)
}

// planWidth bounds a line of --plan's rounds: a round of many pairs
// continues on lines of its own, indented under its first pair.
const planWidth = 100

// WritePlan writes what --plan shows: the pattern and summary, then the
// first maxRounds rounds as "round 1: 0->3 1->2" lines (all of them when
// maxRounds < 0), then how many were left out.
func WritePlan(w io.Writer, pattern string, rounds []Round, perPair, syncPerRank time.Duration, maxRounds int) error {
	ew := &display.ErrWriter{W: w}
	ew.Printf("pattern %s, %s\n", pattern, Plan(rounds, perPair, syncPerRank))
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
	return fmt.Sprintf("%d rounds, %d pairs (at most %d a round), at most %s",
		p.Rounds, p.Pairs, p.MaxPairsPerRound, p.product())
}

// PlanSetup is what a plan counts by default for setting up and tearing
// down one workload of a pair (device, memory, queue pairs, connection,
// port counters) beside its measuring. A steady pair took 0.2-0.3 s of it
// in the TCG VM over rxe (2026-11-29-fabric-round-overhead.md); 1 s
// leaves room for a rank's first pairs.
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

// PairWork is what a plan knows of one workload of a pair, as resolved
// from the flags (the workload's default count filled in).
type PairWork struct {
	Name       string
	Latency    bool          // a ping-pong: an iteration is a round trip
	Duration   time.Duration // -D, 0 in iteration mode
	Iterations int           // timed iterations in iteration mode
	Warmup     int           // untimed iterations first
}

// PairCost is what a plan assumes beside the work.
type PairCost struct {
	PairTime    time.Duration // --pair-time; 0: estimated
	Latency     time.Duration // --plan-latency, the fabric's (half a round trip); 0: not given
	Setup       time.Duration // --plan-setup, a workload's set-up and teardown
	PairTimeout time.Duration // --pair-timeout, the most a pair may take
}

// EstimatePairTime is the time one pair takes: c.PairTime when given,
// else the sum over the workloads of their measuring plus c.Setup each.
// A workload measures for -D, or, in iteration mode, for its iterations
// and warm-up at a round trip (2 x c.Latency) each, which needs a latency
// workload and c.Latency. When a workload's measuring cannot be told, the
// pair counts c.PairTimeout, the most it may take.
func EstimatePairTime(work []PairWork, c PairCost) PairTime {
	if c.PairTime > 0 {
		return PairTime{c.PairTime, "--pair-time"}
	}
	var total time.Duration
	var parts []string
	for _, w := range work {
		var measuring time.Duration
		var how string
		switch {
		case w.Duration > 0:
			measuring, how = w.Duration, fmt.Sprintf("-D %s", w.Duration)
		case !w.Latency:
			return PairTime{c.PairTimeout, fmt.Sprintf("--pair-timeout, the most a pair may take: %s counts iterations, whose time a plan cannot tell for a bandwidth workload; give -D or --pair-time for an estimate", w.Name)}
		case c.Latency <= 0:
			return PairTime{c.PairTimeout, fmt.Sprintf("--pair-timeout, the most a pair may take; give -D, --plan-latency (the fabric's latency, for %s's %d iterations) or --pair-time for an estimate", w.Name, w.Iterations)}
		default:
			measuring = time.Duration(w.Iterations+w.Warmup) * 2 * c.Latency
			how = fmt.Sprintf("(%d + %d warm-up) x 2 x %s", w.Iterations, w.Warmup, c.Latency)
		}
		total += measuring + c.Setup
		parts = append(parts, fmt.Sprintf("%s + %s of set-up", how, c.Setup))
	}
	return PairTime{total, describeWork(work, parts) + "; give --pair-time to change"}
}

// describeWork names what each workload counts: "1 workload: PART", "2
// workloads x (PART)" when they count alike, else "NAME PART; NAME PART".
func describeWork(work []PairWork, parts []string) string {
	switch {
	case len(parts) == 1:
		return "1 workload: " + parts[0]
	case slices.IndexFunc(parts, func(p string) bool { return p != parts[0] }) < 0:
		return fmt.Sprintf("%d workloads x (%s)", len(parts), parts[0])
	}
	named := make([]string, len(parts))
	for i, p := range parts {
		named[i] = work[i].Name + " " + p
	}
	return strings.Join(named, "; ")
}

// WriteSweepPlan writes what --plan prints: the time a pair and where it
// comes from, then the plan of WritePlan with every round of a short
// schedule, the first few of a long one.
func WriteSweepPlan(w io.Writer, pattern string, rounds []Round, pt PairTime, syncPerRank time.Duration) error {
	if _, err := fmt.Fprintf(w, "per pair: %s (%s)\n", pt.Time, pt.How); err != nil {
		return fmt.Errorf("write plan: %w", err)
	}
	shown := -1
	if len(rounds) > planAllRounds {
		shown = planShownRounds
	}
	return WritePlan(w, pattern, rounds, pt.Time, syncPerRank, shown)
}
