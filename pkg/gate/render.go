package gate

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// WriteTable writes the gate's result for a terminal: the sides and
// settings, a row per point, a note per row that needs one, and the
// gate's line, "gate pass (exit 0): ...", last.
func WriteTable(w io.Writer, d *Document, colour bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "base:      %s\ncandidate: %s\n", sideText(d.Base), sideText(d.Candidate))
	b.WriteString(settingsText(d) + "\n")
	if d.StopReason != "" {
		fmt.Fprintf(&b, "stopped: %s, after %.0f s\n", d.StopReason, d.Seconds)
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write gate table: %w", err)
	}
	header := make([]any, len(columns))
	for i, c := range columns {
		header[i] = c
	}
	tbl := display.NewTable(w, false, header...)
	for _, r := range d.Rows {
		cells := rowCells(r)
		cells[len(cells)-1] = compare.Paint(colour, r.Decision.String(), cells[len(cells)-1])
		if err := tbl.Append(cells); err != nil {
			return fmt.Errorf("write gate table: %w", err)
		}
	}
	if err := tbl.Render(); err != nil {
		return fmt.Errorf("write gate table: %w", err)
	}
	b.Reset()
	b.WriteString("\n")
	for _, n := range allNotes(d) {
		b.WriteString(n + "\n")
	}
	b.WriteString(compare.Paint(colour, d.Outcome, Summary(d)) + "\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write gate table: %w", err)
	}
	return nil
}

// columns are the gate table's columns, in every format that has a table.
var columns = []string{"point", "metric", "pairs", "base median", "candidate median", "pair spread (p10, p90)",
	"change [CI]", "CI level", "decision"}

// rowCells are a row's cells under [columns], uncoloured.
func rowCells(r *Row) []string {
	return []string{r.Label(), r.Metric + " (" + r.Unit + ")", fmt.Sprint(len(r.Base)), valueCell(r.BaseMedian, len(r.Base)),
		valueCell(r.CandidateMedian, len(r.Candidate)), spreadCell(r), changeCell(r), levelCell(r), decisionCell(r)}
}

// settingsText says how the gate decides: method, thresholds and the
// false-alarm budget.
func settingsText(d *Document) string {
	s := d.Settings
	return fmt.Sprintf("%s gate%s, thresholds %s; a %g false-alarm budget, %g a row, spent over its looks as its pairs grow, the rest at the last",
		s.Method, pairsText(d), strings.Join(s.Thresholds, ","), s.Alpha, s.Alpha/float64(max(len(d.Rows), 1)))
}

// pairsText says how the pairs' runs were made (", pairs overlapped", or
// in turn and why); "" for a document that predates the record.
func pairsText(d *Document) string {
	switch {
	case d.PairsAs == "":
		return ""
	case d.PairsAsWhy == "":
		return ", pairs " + d.PairsAs
	}
	return fmt.Sprintf(", pairs %s (%s)", d.PairsAs, d.PairsAsWhy)
}

// allNotes are the notes under the table, in every format: each row's
// ("write_lat 64 B lat.p50: ..."), the load's and a partial gate's.
func allNotes(d *Document) []string {
	var out []string
	for _, r := range d.Rows {
		for _, n := range Notes(r, d.Settings.Method) {
			out = append(out, fmt.Sprintf("%s %s: %s", r.Label(), r.Metric, n))
		}
	}
	if n := d.Load.Note(); n != "" {
		out = append(out, "load: "+n)
	}
	if d.Status == StatusPartial {
		out = append(out, "partial: "+d.Reason)
	}
	return out
}

func sideText(s Side) string {
	t := s.display()
	if s.Version != "" {
		t += " (" + strings.TrimPrefix(s.Version, "rdma-bench ") + ")"
	}
	if len(s.Args) > 0 {
		t += " " + strings.Join(s.Args, " ")
	}
	if len(s.Env) > 0 {
		t += " [env " + strings.Join(s.Env, " ") + "]"
	}
	if s.Device != "" {
		t += " [device " + s.Device + "]"
	}
	if s.RDMACore != "" {
		t += " [rdma-core " + s.RDMACore + "]"
	}
	if s.Before != "" || s.After != "" {
		t += fmt.Sprintf(" [before %q, after %q]", s.Before, s.After)
	}
	return t
}

func valueCell(v float64, n int) string {
	if n == 0 {
		return "-"
	}
	return display.Value(v)
}

func changeCell(r *Row) string {
	if len(r.Looks) == 0 {
		return "-"
	}
	return display.Pct(r.EstimatePct) + " " + display.Interval(float64(r.LoPct), float64(r.HiPct))
}

func spreadCell(r *Row) string {
	if len(r.Looks) == 0 && r.PairP10Pct == 0 && r.PairP90Pct == 0 {
		return "-"
	}
	return display.Interval(r.PairP10Pct, r.PairP90Pct)
}

func levelCell(r *Row) string {
	if len(r.Looks) == 0 {
		return "-"
	}
	return compare.FormatConfidence(r.Looks[len(r.Looks)-1].Confidence)
}

// spreadText says how the row's pairs spread.
func spreadText(r *Row) string {
	return fmt.Sprintf("the pairs spread %s to %s (p10 to p90 of candidate/base - 1)", display.Pct(r.PairP10Pct), display.Pct(r.PairP90Pct))
}

// reachText says what the row's pairs can decide by the budget's end.
func reachText(r *Row) string {
	lim := r.limit()
	if math.IsInf(float64(r.ReachPct), 0) {
		return "no regression can be decided yet"
	}
	t := fmt.Sprintf("the gate can decide a regression of about %.1f%% (threshold %g%%)", r.ReachPct, lim)
	if float64(r.ReachPct) > lim {
		t += ": a regression of the threshold's size would likely end undecided; a longer --budget, fewer points or a quieter machine would help"
	}
	return t
}

// limit is the row's threshold in percent.
func (r *Row) limit() float64 {
	if r.threshold.LimitPct != 0 {
		return r.threshold.LimitPct
	}
	if t, err := compare.ParseThresholds(r.Threshold); err == nil && len(t) == 1 { // a row read back
		return t[0].LimitPct
	}
	return 0
}

func decisionCell(r *Row) string {
	if len(r.Looks) == 0 {
		return "not looked at"
	}
	return r.Decision.String()
}

// Notes are what a row's reader needs beside its cells: why it is
// undecided and what would decide it, why its change is not its medians'
// (estimated by m), and the caveats of its runs.
func Notes(r *Row, m Method) []string {
	var n []string
	lim := r.limit()
	switch {
	case len(r.Looks) == 0:
	case r.Decision == compare.Fail:
		n = append(n, fmt.Sprintf("slower: the whole interval is a regression and the estimate is at least half the threshold %s", r.Threshold))
	case r.Decision == compare.Undecided:
		det := "no bound yet"
		if d := float64(r.DetectablePct); !math.IsInf(d, 0) {
			det = fmt.Sprintf("about %.1f%%", r.DetectablePct)
		}
		n = append(n, fmt.Sprintf("undecided after %d pairs, not \"no regression\": the smallest regression these pairs would catch "+
			"most of the time is %s (threshold %g%%); %s; a longer --budget would decide", r.Pairs, det, lim, spreadText(r)))
	}
	if len(r.Looks) > 0 && r.BaseMedian > 0 {
		if m := compare.MedianNote(m.estimate(), 100*(r.CandidateMedian/r.BaseMedian-1), r.EstimatePct, float64(r.LoPct), float64(r.HiPct)); m != "" {
			n = append(n, m)
		}
	}
	runs := 2 * len(r.Base)
	if r.Unclean > 0 {
		n = append(n, fmt.Sprintf("%d of %d runs not clean (the port counters moved: retransmissions)", r.Unclean, runs))
	}
	if r.AtTick > 0 {
		n = append(n, fmt.Sprintf("%d of %d runs had a median latency at the scheduler's tick (4 ms): the two sides took turns on one CPU", r.AtTick, runs))
	}
	return n
}

// Summary is the gate's last line: "gate pass (exit 0): 5 of 5 rows pass".
func Summary(d *Document) string {
	var pass, fail, und []string
	for _, r := range d.Rows {
		switch r.Decision {
		case compare.Pass:
			pass = append(pass, r.Label())
		case compare.Fail:
			fail = append(fail, fmt.Sprintf("%s %s %s", r.Label(), r.Metric, display.Pct(r.EstimatePct)))
		default:
			und = append(und, r.Label())
		}
	}
	if d.Status == StatusPartial {
		return fmt.Sprintf("gate partial (exit %d): measurement stopped after %d of %d rows' pairs; %d pass, %d fail, %d undecided so far",
			ExitMeasurement, len(pass)+len(fail), len(d.Rows), len(pass), len(fail), len(und))
	}
	switch d.ExitCode {
	case ExitFail:
		return fmt.Sprintf("gate fail (exit %d): %s", ExitFail, strings.Join(fail, "; "))
	case ExitUndecided:
		return fmt.Sprintf("gate undecided (exit %d): %d of %d rows undecided (%s); %d pass", ExitUndecided, len(und), len(d.Rows), strings.Join(und, ", "), len(pass))
	}
	return fmt.Sprintf("gate pass (exit %d): %d of %d rows pass", ExitPass, len(pass), len(d.Rows))
}
