package report

import (
	"fmt"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// The notes of a result that every view writing them shares (the run
// and suite tables, -o perftest's stderr, hgrm, csv), and how an
// expectation's verdict reads; how a figure is written and the caveat
// marks are package display's.

// cleanOf is what r's counters say of its run: nil when they were not
// read.
func cleanOf(r *Result) *bool {
	if r == nil || r.Counters == nil {
		return nil
	}
	return r.Counters.Clean
}

// A rowNote is a line the table writes below its table of one row: its
// kind, the row's name, what it says ("partial: 64 bytes: interrupted:
// ..."). A caveat is a note on how far the row's figures can be trusted
// or what they mean; the others (validation passed, counters clean) say
// that all is well.
type rowNote struct {
	text   string
	caveat bool
	// percentiles: the note is of the percentiles alone, nothing to a
	// view that shows none (perftest's -D latency table).
	percentiles bool
}

// rowNotes are the notes of the row name of r, whose summary is s, in
// the order the table writes them: every view that says them calls this.
func rowNotes(name string, r *Result, s Summary) []rowNote {
	var out []rowNote
	add := func(caveat bool, format string, args ...any) {
		out = append(out, rowNote{text: fmt.Sprintf(format, args...), caveat: caveat})
	}
	if r.Status != "" && r.Status != StatusOK {
		add(true, "%s: %s: %s", r.Status, name, r.Reason)
	}
	if n := iterationsShown(r, s); r.Iterations > 0 && n != int64(r.Iterations) {
		add(true, "#iterations: %s: %d is the operations measured (every queue pair, thread, direction and run together), not the %d iterations asked", name, n, r.Iterations)
	}
	if r.Validation != "" {
		add(r.Validation != "passed", "validation: %s: %s", name, r.Validation)
	}
	for _, x := range document.FailedExpectations(r.Expectations) {
		add(true, "expect: %s: %s", name, x)
	}
	if said, caveat, ok := countersSaid(r); ok {
		add(caveat, "counters: %s: %s", name, said)
	}
	if o := r.Open; o != nil {
		add(true, "open loop: %s: latency from each operation's due time; %s", name, openFigures(o))
	}
	if b := s.Bandwidth; r.Rate > 0 && r.Open == nil && b != nil && b.MsgRateMpps*1e6 < KneeAchieved*float64(r.Rate) {
		add(true, "rate limit: %s: achieved only %.0f ops/s: the workload cannot go that fast here", name, b.MsgRateMpps*1e6)
	}
	if l := s.Latency; l != nil && !l.Exact {
		what, exact := "min/max/avg/stdev exact", true
		if r.Moments == nil || r.Moments.Count == 0 {
			what, exact = "min/max/avg/stdev approximate too", false
		}
		add(true, "note: %s: percentiles from a histogram (3 significant digits, within 0.1%%); %s", name, what)
		out[len(out)-1].percentiles = exact
	}
	if s.Latency.AtTick() {
		add(true, "warning: %s: %s", name, display.TickWarning)
	}
	if r.OutOfRange > 0 {
		add(true, "warning: %s: %d latency samples out of range (below 1 ns or above 1 h) are in no statistic", name, r.OutOfRange)
	}
	return out
}

// countersSaid is what r's port counters say of its run, the verdict and
// the wire check ("client: not clean: ...; within the expected overhead
// (...)"), and whether that is a caveat: the run was not clean, or put
// other than the expected packets on the wire; ok is false when they were
// not read. The table's note and the CSV's reason say it in these words.
func countersSaid(r *Result) (said string, caveat, ok bool) {
	c := r.Counters
	if c == nil {
		return "", false, false
	}
	said = c.Verdict
	if c.Wire != "" {
		said += "; " + c.Wire
	}
	clean := c.Clean != nil && *c.Clean && (c.Wire == "" || isWithin(c.Wire))
	return said, !clean, true
}

// ExpectationSummary counts the verdicts of every result: "expect: 3 of
// 4 met"; "" without any.
func ExpectationSummary(results []*Result) string {
	met, all := 0, 0
	for _, r := range results {
		for _, x := range r.Expectations {
			all++
			if x.Pass {
				met++
			}
		}
	}
	if all == 0 {
		return ""
	}
	return fmt.Sprintf("expect: %d of %d met", met, all)
}
