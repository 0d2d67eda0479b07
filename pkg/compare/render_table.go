package compare

import (
	"fmt"
	"io"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// ANSI colours for the table; used only when the caller asks.
const (
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiReset  = "\x1b[0m"
)

// WriteTable writes the report as plain text for a terminal: the title,
// the sides, the differing metadata, the settings, one table row per point
// and metric (regressions first), notes on the rows that need attention and
// the summary line. Text is ASCII; with colour, verdicts and outcomes are
// coloured with ANSI escapes (red slower/fail, green faster/pass, yellow
// inconclusive).
func WriteTable(w io.Writer, r Comparison, colour bool) error {
	ew := &display.ErrWriter{W: w}
	if r.Title != "" {
		ew.Printf("%s\n", r.Title)
	}
	ew.Printf("base: %s\nnew:  %s\n", orDash(r.BaseLabel), orDash(r.NewLabel))
	if len(r.Meta) > 0 {
		ew.Printf("differs:\n")
		for _, m := range r.Meta {
			ew.Printf("  %s: %s -> %s\n", m.Field, orDash(m.Base), orDash(m.New))
		}
	}
	ew.Printf("%s\n\n", r.settings())
	if ew.Err != nil {
		return fmt.Errorf("write table: %w", ew.Err)
	}
	rows := r.ordered()
	if len(rows) > 0 {
		if err := tableRows(w, rows, colour); err != nil {
			return fmt.Errorf("write table: %w", err)
		}
		ew.Printf("\n")
	}
	for _, n := range r.Notes() {
		ew.Printf("%s\n", n)
	}
	ew.Printf("%s\n", paint(colour, r.Gate.Status(), r.Summary()))
	if ew.Err != nil {
		return fmt.Errorf("write table: %w", ew.Err)
	}
	return nil
}

func tableRows(w io.Writer, rows []GateRow, colour bool) error {
	tbl := display.NewTable(w, false, Columns)
	for _, g := range rows {
		cells := g.Cells()
		cells[colVerdict] = paint(colour, g.Verdict.String(), cells[colVerdict])
		cells[colGate] = paint(colour, g.Outcome.String(), cells[colGate])
		if err := tbl.Append(cells); err != nil {
			return err
		}
	}
	return tbl.Render()
}

// paint colours text by the verdict or outcome name key, when colour is on.
func paint(colour bool, key, text string) string {
	if !colour {
		return text
	}
	switch key {
	case "slower", "fail":
		return ansiRed + text + ansiReset
	case "faster", "pass":
		return ansiGreen + text + ansiReset
	case "inconclusive":
		return ansiYellow + text + ansiReset
	}
	return text
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
