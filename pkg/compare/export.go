package compare

import (
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// The formatting rules of every compare view, for the other views of a
// comparison (the paired gate's table) to share.

// FormatPct formats a change in percent with its sign, "+4.1%".
func FormatPct(x float64) string { return fmtPct(x) }

// FormatInterval formats an interval of percentages, "[+1.2%, +3.4%]".
func FormatInterval(lo, hi float64) string { return fmtInterval(lo, hi) }

// FormatValue formats a measured value with four significant digits.
func FormatValue(x float64) string { return fmtValue(x) }

// FormatConfidence formats a confidence level, "99.9%".
func FormatConfidence(c float64) string { return confLabel(c) }

// Paint colours text by a verdict's or outcome's name when colour is on.
// "undecided" is painted as "inconclusive".
func Paint(colour bool, name, text string) string {
	if name == Undecided.String() {
		name = Inconclusive.String()
	}
	return paint(colour, name, text)
}

// NewTable is the ASCII table of every compare view, with a header.
func NewTable(w io.Writer, header ...any) *tablewriter.Table {
	tbl := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
	)
	tbl.Header(header...)
	return tbl
}
