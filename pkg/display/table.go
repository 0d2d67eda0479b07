package display

import (
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// NewTable is the ASCII table of every terminal view, with its header:
// cells aligned right (a table of figures, as perftest's) or left (a
// table of verdicts and words).
func NewTable(w io.Writer, right bool, header ...any) *tablewriter.Table {
	align := tw.AlignLeft
	if right {
		align = tw.AlignRight
	}
	tbl := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(align),
		tablewriter.WithRowAlignment(align),
	)
	tbl.Header(header...)
	return tbl
}

// ErrWriter keeps the first write error, so that a view can write line
// after line and check once: every write after a failed one is skipped.
type ErrWriter struct {
	W   io.Writer
	Err error
}

// Write writes p unless an earlier write failed.
func (e *ErrWriter) Write(p []byte) (int, error) {
	if e.Err != nil {
		return 0, e.Err
	}
	n, err := e.W.Write(p)
	e.Err = err
	return n, err
}

// Printf writes a formatted line unless an earlier write failed.
func (e *ErrWriter) Printf(format string, args ...any) {
	_, _ = fmt.Fprintf(e, format, args...)
}

// Done is the first write error, if any, wrapped with what was being
// written ("fabric findings: ..."); nil when every write succeeded.
func (e *ErrWriter) Done(what string) error {
	if e.Err != nil {
		return fmt.Errorf("%s: %w", what, e.Err)
	}
	return nil
}
