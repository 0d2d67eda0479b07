package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// cellText is what a side's cell adds for its runs with caveats: " (2
// unclean)" when they are among the values, " (2 unclean left out)" when
// they were dropped, " (10 thin*)" for percentiles from too few samples
// (display.ThinMark, as the run's tables mark such a figure),
// " (3 at tick)" for medians at the scheduler's tick, " (1 partial)" for
// runs cut short; "" when none.
func (c RunCounts) cellText() string {
	var parts []string
	if c.Unclean > 0 {
		parts = append(parts, fmt.Sprintf("%d unclean", c.Unclean))
	}
	if c.Dropped > 0 {
		parts = append(parts, fmt.Sprintf("%d unclean left out", c.Dropped))
	}
	if c.Thin > 0 {
		parts = append(parts, fmt.Sprintf("%d thin%s", c.Thin, display.ThinMark))
	}
	if c.Tick > 0 {
		parts = append(parts, fmt.Sprintf("%d at tick", c.Tick))
	}
	if c.Partial > 0 {
		parts = append(parts, fmt.Sprintf("%d partial", c.Partial))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// caveatNotes are the notes of the rows' caveats, in the rows' order:
// unclean runs per point, then percentiles from too few samples per
// point and metric, then medians at the scheduler's tick per point.
func caveatNotes(rows []GateRow) []string {
	out := uncleanNotes(rows)
	for _, g := range rows {
		if n := MedianNote(EstimateOf(g.Method), g.MedianChangePct, g.ChangePct, g.ChangeLoPct, g.ChangeHiPct); n != "" {
			out = append(out, g.Point+" "+g.Metric.Name+": "+n)
		}
	}
	for _, g := range rows {
		b, n := g.Base.Thin, g.New.Thin
		if b+n > 0 {
			out = append(out, fmt.Sprintf("%s %s%s: %s have fewer latency samples than the percentile needs (p99: 100, p99.9: 1,000): each such value is the run's largest sample, or near it; run longer (-n, -D)",
				g.Point, g.Metric.Name, display.ThinMark, sides(b, g.Base.N, n, g.New.N)))
		}
	}
	out = append(out, perPoint(rows, func(c RunCounts) int { return c.Partial },
		"cut short (partial: an interrupted run), pooled with the others by --allow-partial")...)
	return append(out, perPoint(rows, func(c RunCounts) int { return c.Tick },
		"had a median latency at the scheduler's tick (4 ms): the two sides took turns on one CPU; pin them apart with --cpu")...)
}

// perPoint is a note for each point some of whose runs carry a caveat
// (count counts a side's), once a point whatever its metrics: "POINT: 2
// of 10 base runs ... what".
func perPoint(rows []GateRow, count func(RunCounts) int, what string) []string {
	var out []string
	seen := map[string]bool{}
	for _, g := range rows {
		b, n := count(g.Base.RunCounts), count(g.New.RunCounts)
		if b+n > 0 && !seen[g.Point] {
			seen[g.Point] = true
			out = append(out, g.Point+": "+sides(b, g.Base.N, n, g.New.N)+" "+what)
		}
	}
	return out
}

// uncleanNotes are one line per point whose runs were not all clean, in
// the rows' order: how many on each side, and whether they were pooled
// or left out.
func uncleanNotes(rows []GateRow) []string {
	var out []string
	seen := map[string]bool{}
	for _, g := range rows {
		b, n := g.Base.RunCounts, g.New.RunCounts
		if seen[g.Point] || b.Unclean+b.Dropped+n.Unclean+n.Dropped == 0 {
			continue
		}
		seen[g.Point] = true
		why := g.Point + ": "
		if b.Unclean+n.Unclean > 0 {
			why += sides(b.Unclean, g.Base.N, n.Unclean, g.New.N) + " not clean, pooled with the others (--clean-only leaves them out); "
		}
		if b.Dropped+n.Dropped > 0 {
			why += sides(b.Dropped, g.Base.N+b.Dropped, n.Dropped, g.New.N+n.Dropped) + " not clean, left out by --clean-only; "
		}
		out = append(out, why+"the port counters saw retransmissions or errors")
	}
	return out
}

// sides says "2 of 10 base runs and 3 of 10 new runs", leaving out a side
// with none.
func sides(b, bOf, n, nOf int) string {
	var s []string
	if b > 0 {
		s = append(s, fmt.Sprintf("%d of %d base runs", b, bOf))
	}
	if n > 0 {
		s = append(s, fmt.Sprintf("%d of %d new runs", n, nOf))
	}
	return strings.Join(s, " and ")
}

// uncleanTotals counts the unclean runs of every point once, pooled and
// left out.
func uncleanTotals(rows []GateRow) (pooled, dropped int) {
	seen := map[string]bool{}
	for _, g := range rows {
		if !seen[g.Point] {
			seen[g.Point] = true
			pooled += g.Base.Unclean + g.New.Unclean
			dropped += g.Base.Dropped + g.New.Dropped
		}
	}
	return pooled, dropped
}

// uncleanSummary is the summary line's part on unclean runs, "" when
// every run was clean.
func uncleanSummary(rows []GateRow) string {
	pooled, dropped := uncleanTotals(rows)
	var parts []string
	if pooled > 0 {
		parts = append(parts, fmt.Sprintf("%d unclean runs pooled", pooled))
	}
	if dropped > 0 {
		parts = append(parts, LeftOutText(dropped))
	}
	return strings.Join(parts, ", ")
}

// LeftOutText counts the unclean runs --clean-only left out, as every
// view says it: "3 unclean runs left out (--clean-only)".
func LeftOutText(n int) string {
	return fmt.Sprintf("%d unclean runs left out (--clean-only)", n)
}

// Estimate is how a change and its interval were estimated, which
// [MedianNote] names.
type Estimate int

// The estimates.
const (
	// EstimateRuns: the two-sample Hodges-Lehmann estimate over the runs,
	// the median of new/base over every pair of a base value and a new
	// one ([ShiftInterval]): compare's [MethodRuns],
	// [MethodSessionNoise] (its interval widened) and [MethodOneSession],
	// and the unpaired gate.
	EstimateRuns Estimate = iota
	// EstimateSessions: the difference of the two sides' means of their
	// sessions' log medians, with Student's t interval ([MethodSessions]).
	EstimateSessions
	// EstimatePairs: the one-sample Hodges-Lehmann estimate of the pairs'
	// log ratios, the median of their Walsh averages, with signed-rank
	// bounds ([PairedShift]): the paired gate.
	EstimatePairs
)

// EstimateOf is the estimate of a row of compare whose Method is method.
func EstimateOf(method string) Estimate {
	if method == MethodSessions {
		return EstimateSessions
	}
	return EstimateRuns
}

// what says what the change of an estimate is, and why two medians can
// differ from it.
func (e Estimate) what() string {
	switch e {
	case EstimateSessions:
		return "the change compares the sessions, the mean of each side's log session medians (Student's t interval): " +
			"each session counts once however many runs it holds, where the two medians pool every run"
	case EstimatePairs:
		return "the change is the one-sample Hodges-Lehmann estimate of the pairs' log ratios (the median of their Walsh averages): " +
			"each candidate run against the base run beside it, where the two medians set each side's runs apart, drift included"
	default:
		return "the change is the Hodges-Lehmann estimate of new/base over every pair of a base value and a new one, " +
			"which two medians of a skewed or many-mode sample can misstate"
	}
}

// MedianNote says, when the medians' change (new median / base median -
// 1, in per cent) lies outside the change's interval [lo, hi], why the
// table's change, estimated as e says, is not theirs; "" when they
// agree.
// Every view of a change beside two medians (compare, the gate) says it
// so: both are right, and the reader must know which the change is.
func MedianNote(e Estimate, medianPct, changePct, lo, hi float64) string {
	if math.IsNaN(medianPct) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return ""
	}
	if medianPct >= lo && medianPct <= hi {
		return ""
	}
	return fmt.Sprintf("the medians differ by %s, the change is %s %s: %s",
		display.Pct(medianPct), display.Pct(changePct), display.Interval(lo, hi), e.what())
}
