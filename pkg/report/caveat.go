package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// The rules every view of a result follows (the run and suite tables, the
// HTML report's tables, hgrm, csv): how a figure is written, which caveats
// mark it, and how an expectation's verdict reads. Written once here; the
// views call these.

// Figure formats v with prec decimals; a nonzero figure that would show
// fewer than two significant digits gets three: no figure rounds to zero
// (2 B of bandwidth is 0.000478 Gb/s, not 0.000).
func Figure(v float64, prec int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) >= math.Pow(10, 1-float64(prec)) {
		return strconv.FormatFloat(v, 'f', prec, 64)
	}
	// Two significant digits or fewer at prec decimals: show three.
	digits := 2 - int(math.Floor(math.Log10(math.Abs(v))))
	return strconv.FormatFloat(v, 'f', max(digits, prec), 64)
}

// Significant formats v with digits significant digits, as compare's
// figures are written: 2.003, 361.2, 0.000478; never in exponent form, and
// no nonzero figure rounds to zero.
func Significant(v float64, digits int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	dec := digits - 1 - int(math.Floor(math.Log10(math.Abs(v))))
	return strconv.FormatFloat(v, 'f', max(0, dec), 64)
}

// MinSamples is how many samples the percentile q (such as 99.9) needs
// before it is more than the largest sample: 100 for p99, 1,000 for
// p99.9, 10,000 for p99.99.
func MinSamples(q float64) int64 {
	if q >= 100 {
		return math.MaxInt64
	}
	return int64(math.Ceil(100/(100-q) - 1e-9))
}

// Thin tells whether the percentile q from n samples is beyond what n
// samples resolve: it is then the largest sample, or near it.
func Thin(q float64, n int64) bool { return n > 0 && n < MinSamples(q) }

// The marks of a cell, explained below every table that has them.
const (
	// ThinMark follows a percentile from fewer samples than it needs.
	ThinMark = "*"
	// UncleanMark follows the name of a row whose run was not clean.
	UncleanMark = "!"
)

// What the marks say, written once: a table's footnotes ([ThinNote],
// [UncleanNote]) and the notes of a view without marks ([thinNote],
// [uncleanNote]) are made of these words.
const (
	thinWhy     = "a percentile from fewer samples than it needs (p99: 100, p99.9: 1,000, p99.99: 10,000): it is the largest sample, or near it"
	uncleanWhat = "not clean"
	uncleanWhy  = "the device's error counters moved during the run (retransmissions, drops): its figures include the recovery"
)

// ThinNote explains [ThinMark].
const ThinNote = ThinMark + " " + thinWhy

// UncleanNote explains [UncleanMark]; the notes that follow name the
// counters that moved.
const UncleanNote = UncleanMark + " " + uncleanWhat + ": " + uncleanWhy

// ThinLegend and UncleanLegend name the caveats in a chart's legend,
// under the tables' marks, so that a chart beside a table (the HTML
// report) reads with its footnotes ([ThinNote], [UncleanNote]); short
// enough to keep the legend right of the chart.
const (
	ThinLegend    = ThinMark + " percentile from too few samples"
	UncleanLegend = UncleanMark + " run " + uncleanWhat
)

// uncleanNote is [UncleanNote] said of the row name, for a view that
// has no marks: "not clean: write_bw 65536 bytes: the device's error
// counters moved ..."; "" when its run was clean or its counters unread.
func uncleanNote(name string, clean *bool) string {
	if !Unclean(clean) {
		return ""
	}
	return uncleanWhat + ": " + name + ": " + uncleanWhy
}

// thinNote is [ThinNote] said of the row name, for a view that has no
// marks, naming which of the percentiles qs it shows are from fewer of
// its n samples than they need: "thin: write_lat 64 bytes: p99, p99.9 of
// 4 samples: a percentile from fewer samples ..."; "" when none is.
func thinNote(name string, n int64, qs ...float64) string {
	var thin []string
	for _, q := range qs {
		if Thin(q, n) {
			thin = append(thin, "p"+strconv.FormatFloat(q, 'f', -1, 64))
		}
	}
	if len(thin) == 0 {
		return ""
	}
	return fmt.Sprintf("thin: %s: %s of %d samples: %s", name, strings.Join(thin, ", "), n, thinWhy)
}

// Percentile formats the percentile q of n samples, v microseconds, with
// prec decimals, marked when n is too few for q.
func Percentile(v float64, q float64, n int64, prec int) string {
	s := Figure(v, prec)
	if Thin(q, n) {
		s += ThinMark
	}
	return s
}

// Unclean tells whether a result's counters say its run was not clean
// (false when they were not read).
func Unclean(clean *bool) bool { return clean != nil && !*clean }

// RowName is a row's first cell, marked when its run was not clean.
func RowName(name string, clean *bool) string {
	if Unclean(clean) {
		return name + " " + UncleanMark
	}
	return name
}

// Footnotes are the explanations of the marks the cells of a table use,
// one line each, in the order of the marks.
func Footnotes(cells [][]string) []string {
	var thin, unclean bool
	for _, row := range cells {
		for _, c := range row {
			thin = thin || strings.HasSuffix(c, ThinMark)
			unclean = unclean || strings.HasSuffix(c, " "+UncleanMark)
		}
	}
	var out []string
	if unclean {
		out = append(out, UncleanNote)
	}
	if thin {
		out = append(out, ThinNote)
	}
	return out
}

// Count is the iteration count a view shows: the iterations asked for,
// or the operations measured in duration mode (where iterations are 0).
func Count(iterations int, ops uint64) string {
	if iterations > 0 {
		return strconv.Itoa(iterations)
	}
	return strconv.FormatUint(ops, 10)
}

// Samples formats a latency sample count, "-" when there is none.
func Samples(n int64) string {
	if n <= 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

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
	for _, x := range FailedExpectations(r.Expectations) {
		add(true, "expect: %s: %s", name, x)
	}
	if c := r.Counters; c != nil {
		text := fmt.Sprintf("counters: %s: %s", name, c.Verdict)
		if c.Wire != "" {
			text += "; " + c.Wire
		}
		clean := c.Clean != nil && *c.Clean && (c.Wire == "" || isWithin(c.Wire))
		add(!clean, "%s", text)
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
		add(true, "warning: %s: %s", name, TickWarning)
	}
	if r.OutOfRange > 0 {
		add(true, "warning: %s: %d latency samples out of range (below 1 ns or above 1 h) are in no statistic", name, r.OutOfRange)
	}
	return out
}

// ExpectationText says an expectation's verdict in words, as every view
// writes it: "bw>=90%link failed: 0.561 Gb/s, want >= 9 Gb/s (90% of the
// 10 Gb/s link)".
func ExpectationText(x document.Expectation) string {
	verdict, got := "met", "no figure"
	if !x.Pass {
		verdict = "failed"
	}
	if x.Value != nil {
		got = Significant(*x.Value, 4) + " " + x.Unit
	}
	s := fmt.Sprintf("%s %s: %s, want %s %s %s", x.Expect, verdict, got, x.Op, Significant(x.Limit, 4), x.Unit)
	if x.Note != "" {
		s += " (" + x.Note + ")"
	}
	return s
}

// FailedExpectations are the verdicts of xs that failed, in words.
func FailedExpectations(xs []document.Expectation) []string {
	var out []string
	for _, x := range xs {
		if !x.Pass {
			out = append(out, ExpectationText(x))
		}
	}
	return out
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
