package compare

import (
	"fmt"
	"strings"
)

// cellText is what a side's cell adds for its unclean runs: " (2
// unclean)" when they are among the values, " (2 unclean left out)" when
// they were dropped, "" when every run was clean.
func (c RunCounts) cellText() string {
	var parts []string
	if c.Unclean > 0 {
		parts = append(parts, fmt.Sprintf("%d unclean", c.Unclean))
	}
	if c.Dropped > 0 {
		parts = append(parts, fmt.Sprintf("%d unclean left out", c.Dropped))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// uncleanNotes are one line per point whose runs were not all clean, in
// the rows' order: how many on each side, and whether they were pooled
// or left out.
func uncleanNotes(rows []GateRow) []string {
	var out []string
	seen := map[string]bool{}
	for _, g := range rows {
		b, n := g.Base.RunCounts, g.New.RunCounts
		if seen[g.Point] || b == (RunCounts{}) && n == (RunCounts{}) {
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
		parts = append(parts, fmt.Sprintf("%d unclean runs left out (--clean-only)", dropped))
	}
	return strings.Join(parts, ", ")
}
