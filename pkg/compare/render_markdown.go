package compare

import (
	"fmt"
	"io"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// WriteMarkdown writes the report as GitHub-flavoured Markdown, for
// $GITHUB_STEP_SUMMARY: the title, the summary line with counts, the sides,
// a table of the metadata that differs, the settings, a table of every
// point and metric (regressions first) and notes on the rows that need
// attention. Cell text is escaped so every table row has the same columns.
func WriteMarkdown(w io.Writer, r Comparison) error {
	ew := &display.ErrWriter{W: w}
	title := r.Title
	if title == "" {
		title = "Comparison"
	}
	ew.Printf("### %s\n\n", md(title))
	head, tail := r.summary()
	ew.Printf("**%s**: %s\n\n", md(head), md(tail))
	ew.Printf("Base: %s; new: %s.\n\n", md(orDash(r.BaseLabel)), md(orDash(r.NewLabel)))
	if len(r.Meta) > 0 {
		ew.Printf("| differs | base | new |\n| --- | --- | --- |\n")
		for _, m := range r.Meta {
			ew.Printf("| %s | %s | %s |\n", md(m.Field), md(orDash(m.Base)), md(orDash(m.New)))
		}
		ew.Printf("\n")
	}
	ew.Printf("_%s_\n\n", md(r.settings()))
	rows := r.ordered()
	if len(rows) > 0 {
		ew.Printf("| %s |\n", strings.Join(Columns, " | "))
		ew.Printf("| --- | --- | ---: | ---: | ---: | ---: | --- | --- |\n")
		for _, g := range rows {
			cells := g.Cells()
			for i := range cells {
				cells[i] = md(cells[i])
			}
			if g.Verdict == Slower || g.Outcome == OutcomeFail {
				cells[colVerdict] = "**" + cells[colVerdict] + "**"
			}
			ew.Printf("| %s |\n", strings.Join(cells, " | "))
		}
		ew.Printf("\n")
	}
	if notes := r.Notes(); len(notes) > 0 {
		ew.Printf("Notes:\n\n")
		for _, n := range notes {
			ew.Printf("- %s\n", md(n))
		}
	}
	if ew.Err != nil {
		return fmt.Errorf("write markdown: %w", ew.Err)
	}
	return nil
}

var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "*", `\*`, "`", "\\`", "<", "&lt;", ">", "&gt;", "\n", " ", "\r", " ")

// md escapes text for a Markdown table cell or paragraph.
func md(s string) string {
	return mdEscaper.Replace(s)
}

// Markdown escapes text for a Markdown table cell or paragraph, as
// compare's own Markdown does.
func Markdown(s string) string { return md(s) }
