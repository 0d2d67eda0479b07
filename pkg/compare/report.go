package compare

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/aclements/go-moremath/stats"
	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// MetaDiff is one field of run metadata that differs between the sides,
// such as the firmware version, driver, kernel, rdma-core or rdma-bench
// version, device, host, link, MTU or a parameter.
type MetaDiff struct {
	Field, Base, New string
}

// Comparison is everything a renderer shows: the gate's rows (each with its
// comparison) and thresholds, the sides' labels, and the metadata that
// differs between them, which every format shows first.
type Comparison struct {
	// Title heads the report, such as "rdma-bench compare".
	Title string
	// BaseLabel and NewLabel name the sides, such as file names or builds.
	BaseLabel, NewLabel string
	// Meta lists only the metadata fields that differ.
	Meta []MetaDiff
	// Gate holds the rows, the thresholds and the outcome; build it with
	// [Gate] (with no thresholds every row is "not gated").
	Gate GateResult
}

// Renderer writes a report in one format.
type Renderer func(w io.Writer, r Comparison) error

// Formats lists the names [RendererFor] accepts.
var Formats = []string{"table", "markdown", "json", "junit"}

// RendererFor returns the renderer of a format named in [Formats]. colour
// applies to "table" only; the caller decides it, for instance from
// whether standard output is a terminal.
func RendererFor(format string, colour bool) (Renderer, error) {
	switch format {
	case "table":
		return func(w io.Writer, r Comparison) error { return WriteTable(w, r, colour) }, nil
	case "markdown":
		return WriteMarkdown, nil
	case "json":
		return WriteJSON, nil
	case "junit":
		return WriteJUnit, nil
	}
	return nil, fmt.Errorf("unknown format %q (known: %s)", format, strings.Join(Formats, ", "))
}

// VerdictCounts counts the rows of each verdict.
type VerdictCounts struct {
	Slower, Faster, Same, Inconclusive int
}

// Verdicts counts the report's rows by verdict.
func (r Comparison) Verdicts() VerdictCounts {
	var c VerdictCounts
	for _, g := range r.Gate.Rows {
		switch g.Verdict {
		case Slower:
			c.Slower++
		case Faster:
			c.Faster++
		case Same:
			c.Same++
		default:
			c.Inconclusive++
		}
	}
	return c
}

// ordered returns the rows for people: gate failures first, then slower,
// inconclusive (by verdict or at the gate), faster and same; the input
// order within each group.
func (r Comparison) ordered() []GateRow {
	rank := func(g GateRow) int {
		switch {
		case g.Outcome == OutcomeFail:
			return 0
		case g.Verdict == Slower:
			return 1
		case g.Verdict == Inconclusive || g.Outcome == OutcomeInconclusive:
			return 2
		case g.Verdict == Faster:
			return 3
		}
		return 4
	}
	rows := slices.Clone(r.Gate.Rows)
	slices.SortStableFunc(rows, func(a, b GateRow) int { return rank(a) - rank(b) })
	return rows
}

// summary is the one-line result, the same in every format: the gate's
// status and exit code (head), then the counts (tail).
func (r Comparison) summary() (head, tail string) {
	g, v := r.Gate.Counts(), r.Verdicts()
	head = fmt.Sprintf("gate %s (exit %d)", r.Gate.Status(), r.Gate.ExitCode())
	if r.Gate.Strict {
		head += ", strict"
	}
	tail = fmt.Sprintf("%d of %d gated beyond threshold, %d inconclusive; verdicts: %d slower, %d faster, %d same, "+
		"%d inconclusive of %d comparisons", g.Fail, g.Pass+g.Fail+g.Inconclusive, g.Inconclusive,
		v.Slower, v.Faster, v.Same, v.Inconclusive, len(r.Gate.Rows))
	if u := uncleanSummary(r.Gate.Rows); u != "" {
		tail += "; " + u
	}
	return head, tail
}

// Summary is the one-line result every format shows: the gate's status
// and exit code, the counts, and the unclean runs.
func (r Comparison) Summary() string {
	head, tail := r.summary()
	return head + ": " + tail
}

// settings describes the statistics and thresholds in one line.
func (r Comparison) settings() string {
	var parts []string
	if len(r.Gate.Rows) > 0 {
		o := r.Gate.Rows[0].Options
		parts = append(parts, fmt.Sprintf("medians with %s intervals (benchmath), Mann-Whitney U test at alpha %g, "+
			"noise band +/-%g%%, change: Hodges-Lehmann estimate of new/base with its interval (on log ratios)", confLabel(o.Confidence), o.Alpha, o.NoiseBandPct))
		if s := sessionSettings(r.Gate.Rows); s != "" {
			parts = append(parts, s)
		}
		if slices.ContainsFunc(r.Gate.Rows, func(g GateRow) bool { return g.Base.noCI() || g.New.noCI() }) {
			parts = append(parts, fmt.Sprintf("[no CI]: a median's %s interval takes at least %d runs",
				confLabel(o.Confidence), medianRuns(o.Confidence)))
		}
	}
	th := "none"
	if len(r.Gate.Thresholds) > 0 {
		names := make([]string, len(r.Gate.Thresholds))
		for i, t := range r.Gate.Thresholds {
			names[i] = t.String()
		}
		th = strings.Join(names, ", ")
	}
	return strings.Join(append(parts, "thresholds: "+th), "; ")
}

// sessionSettings says how sessions entered the rows: over sessions, with
// the lab's session noise, or not at all; "" when no row knows its
// sessions.
func sessionSettings(rows []GateRow) string {
	var m []string
	for _, g := range rows {
		if g.Base.Sessions > 0 && !slices.Contains(m, g.Method) {
			m = append(m, g.Method)
		}
	}
	if len(m) == 0 {
		return ""
	}
	var parts []string
	for _, x := range m {
		switch x {
		case MethodSessions:
			parts = append(parts, "over sessions where there are three or more in all (each session's median one value, Student's t)")
		case MethodSessionNoise:
			parts = append(parts, fmt.Sprintf("over runs, widened by a session noise of %g%% (--session-noise)", rows[0].Options.SessionNoisePct))
		case MethodRuns:
			parts = append(parts, "over runs (--session-noise 0: sessions taken not to drift)")
		case MethodOneSession:
			parts = append(parts, "not decided with one session a side (the drift between two sessions is not measured)")
		}
	}
	return "sessions (documents, or runs taken together in time): the change " + strings.Join(parts, "; ")
}

// note returns what a reader should know about a row beyond its cells,
// starting with the outcome or verdict, or "" when the row does not bear
// on the gate and is not slower: same, faster, or inconclusive but passing
// or ungated (quiet counts those; -o json keeps every row's reason).
func note(g GateRow) string {
	switch {
	case g.Outcome == OutcomeFail || g.Outcome == OutcomeInconclusive:
		return g.Outcome.String() + ": " + g.Message
	case g.Verdict == Slower && g.Threshold != nil:
		return g.Verdict.String() + " but within " + g.Threshold.String() + ": " + g.Reason
	case g.Verdict == Slower:
		return g.Verdict.String() + " (not gated): " + g.Reason
	}
	return ""
}

// Notes are what every format says below its rows, in the rows' order
// for people: a line for each row that needs attention ("POINT METRIC:
// note"), one for each point whose runs were not all clean, and how many
// more rows are inconclusive without a note.
func (r Comparison) Notes() []string {
	rows := r.ordered()
	var out []string
	for _, g := range rows {
		if n := note(g); n != "" {
			out = append(out, g.Point+" "+g.Metric.Name+": "+n)
		}
	}
	out = append(out, caveatNotes(rows)...)
	if q := quiet(rows); q != "" {
		out = append(out, q)
	}
	return out
}

// quiet says how many inconclusive rows got no note, or "" when none.
func quiet(rows []GateRow) string {
	n := 0
	for _, g := range rows {
		if g.Verdict == Inconclusive && note(g) == "" {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d more rows are inconclusive without bearing on the gate (not gated, or within their threshold); "+
		"-o json gives each one's reason and hint", n)
}

// Columns head the table of rows, the same in every view that has one
// (the table, Markdown and the HTML report); [GateRow.Cells] fills them.
var Columns = []string{"point", "metric", "base median [CI] n", "new median [CI] n", "change [CI]", "p", "verdict", "gate"}

// Cells are the row's cells under [Columns], as plain text.
func (g GateRow) Cells() []string {
	return []string{g.Point, g.Metric.Name + " (" + g.Metric.Unit + ")", sideCell(g.Base), sideCell(g.New),
		changeCell(g.Row), fmtP(g.P), verdictCell(g.Row), gateCell(g)}
}

// verdictCell is the verdict; an inconclusive one says what these runs
// could decide: "inconclusive (decides <-7.7% or >+8.3%)", or "(too few
// runs)" when nothing, "(one session a side)" when the sessions are too
// few to measure their drift.
func verdictCell(r Row) string {
	switch {
	case r.Verdict != Inconclusive:
		return r.Verdict.String()
	case r.Method == MethodOneSession:
		return r.Verdict.String() + " (" + MethodOneSession + ")"
	case math.IsInf(r.DetectableHiPct, 1):
		return r.Verdict.String() + " (too few runs)"
	}
	return fmt.Sprintf("%s (decides <%s or >%s)", r.Verdict, display.Pct(r.DetectableLoPct), display.Pct(r.DetectableHiPct))
}

// Column indices of [Columns] that the renderers decorate.
const (
	colVerdict = 6
	colGate    = 7
)

// sideCell formats a side as "10.02 [9.98, 10.10] n=10", or "10.02 [no CI]
// n=5" when the runs are too few for a median's interval at the
// confidence asked (settings says how many it takes), then its unclean
// runs, "n=8 (2 unclean left out)".
func sideCell(s Side) string {
	n := fmt.Sprintf("n=%d", s.N)
	if s.Sessions > 0 {
		n += fmt.Sprintf(" in %d session%s", s.Sessions, plural(s.Sessions))
	}
	if s.noCI() {
		return fmt.Sprintf("%s [no CI] %s%s", display.Value(s.Median), n, s.cellText())
	}
	return fmt.Sprintf("%s [%s, %s] %s%s", display.Value(s.Median), display.Value(s.Lo), display.Value(s.Hi), n, s.cellText())
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// changeCell formats the change as "+7.2% [+5.9%, +8.4%]".
func changeCell(r Row) string {
	return display.Pct(r.ChangePct) + " " + display.Interval(r.ChangeLoPct, r.ChangeHiPct)
}

// gateCell formats the outcome with the threshold applied.
func gateCell(g GateRow) string {
	if g.Threshold == nil {
		return g.Outcome.String()
	}
	return g.Outcome.String() + " (" + g.Threshold.String() + ")"
}

// noCI is true when the runs were too few for the median's interval.
func (s Side) noCI() bool { return math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) }

// medianRuns is the fewest runs with which a median has a finite
// distribution-free interval at this confidence (6 at 95%), as benchmath
// computes them.
func medianRuns(confidence float64) int {
	for n := 2; n < 1000; n++ {
		if ci := stats.QuantileCI(n, 0.5, confidence); ci.LoOrder > 0 && ci.HiOrder <= n {
			return n
		}
	}
	return 1000
}
