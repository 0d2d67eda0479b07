package gate

import (
	"fmt"
	"io"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
)

// WriteMarkdown writes the gate's result as GitHub-flavoured Markdown, for
// $GITHUB_STEP_SUMMARY, in the table's words: the summary line, the sides,
// the settings, a row per point and the notes.
func WriteMarkdown(w io.Writer, d *Document) error {
	var b strings.Builder
	b.WriteString("### Gate\n\n")
	head, tail, _ := strings.Cut(Summary(d), ": ")
	fmt.Fprintf(&b, "**%s**: %s\n\n", compare.Markdown(head), compare.Markdown(tail))
	fmt.Fprintf(&b, "Base: %s; candidate: %s.\n\n", compare.Markdown(sideText(d.Base)), compare.Markdown(sideText(d.Candidate)))
	if d.StopReason != "" {
		fmt.Fprintf(&b, "Stopped: %s, after %.0f s.\n\n", compare.Markdown(d.StopReason), d.Seconds)
	}
	fmt.Fprintf(&b, "_%s_\n\n", compare.Markdown(settingsText(d)))
	if len(d.Rows) > 0 {
		b.WriteString("| " + strings.Join(columns, " | ") + " |\n|" + strings.Repeat(" --- |", len(columns)) + "\n")
		for _, r := range d.Rows {
			cells := rowCells(r)
			for i := range cells {
				cells[i] = compare.Markdown(cells[i])
			}
			if r.Decision == compare.Fail {
				cells[len(cells)-1] = "**" + cells[len(cells)-1] + "**"
			}
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		}
		b.WriteString("\n")
	}
	if notes := allNotes(d); len(notes) > 0 {
		b.WriteString("Notes:\n\n")
		for _, n := range notes {
			b.WriteString("- " + compare.Markdown(n) + "\n")
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write gate markdown: %w", err)
	}
	return nil
}

// WriteJUnit writes the gate's result as JUnit XML through compare's
// writer: a testcase per point (classname the point, name the metric); a
// failed point is a <failure type="regression">, an undecided one a
// <failure type="undecided"> (the gate exits 3 on it: a CI must not read
// it as a pass), a point never looked at <skipped>; each case's
// system-out is its cells and notes, the suite's the summary and notes.
func WriteJUnit(w io.Writer, d *Document) error {
	props := []compare.JUnitProperty{{Name: "base", Value: sideText(d.Base)}, {Name: "candidate", Value: sideText(d.Candidate)},
		{Name: "settings", Value: settingsText(d)}, {Name: "status", Value: d.Status}}
	var cases []compare.JUnitCase
	for _, r := range d.Rows {
		cells := rowCells(r)
		var ev []string
		for i, c := range cells {
			ev = append(ev, columns[i]+": "+c)
		}
		notes := Notes(r, d.Settings.Method)
		c := compare.JUnitCase{Name: r.Metric, Classname: r.Label(), Out: strings.Join(append(ev, notes...), "\n")}
		msg := fmt.Sprintf("%s %s: %s, change %s", r.Label(), r.Metric, decisionCell(r), changeCell(r))
		switch {
		case len(r.Looks) == 0:
			c.Skipped = &compare.JUnitResult{Message: msg, Type: "not-looked-at"}
		case r.Decision == compare.Fail:
			c.Failure = &compare.JUnitResult{Message: msg, Type: "regression", Text: strings.Join(notes, "\n")}
		case r.Decision == compare.Undecided:
			c.Failure = &compare.JUnitResult{Message: msg, Type: "undecided", Text: strings.Join(notes, "\n")}
		}
		cases = append(cases, c)
	}
	out := strings.Join(append([]string{Summary(d)}, allNotes(d)...), "\n")
	return compare.WriteJUnitSuite(w, "gate", props, out, cases)
}
