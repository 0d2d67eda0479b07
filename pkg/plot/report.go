package plot

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
)

// Report is a self-contained HTML page of results: a title, key/value
// metadata (device, firmware, hosts, date, tool) and sections of notes,
// charts and tables.
type Report struct {
	Title    string
	Meta     [][2]string
	Sections []Section
}

// Section is one part of a report; it shows its notes, then its charts,
// then its tables.
type Section struct {
	Title  string
	Notes  []string
	Tables []Table
	Charts []*Chart
}

// Table is a plain table; cells that hold a number are right-aligned.
type Table struct {
	// Caption names the table above it (whose figures they are: a
	// label's); "" for none.
	Caption string
	Header  []string
	Rows    [][]string
	// Notes are printed below the table: what its marks mean.
	Notes []string
}

// page is what the template sees.
type page struct {
	Report
	Figures [][]template.HTML // per section, the charts' inline SVG
}

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"numeric": isNumeric,
}).Parse(reportHTML))

// WriteHTMLFile writes r to path as one HTML file, once complete (see
// package outfile): charts as inline SVG, CSS inline, no script and
// nothing loaded from elsewhere, so it opens from a mail attachment or a
// CI artifact. All text is escaped. When ctx ends while its charts are
// drawn, nothing is written and the error is ctx's cause.
func WriteHTMLFile(ctx context.Context, path string, r Report) error {
	b, err := renderHTML(ctx, r)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil {
		return fmt.Errorf("report directory: %w", err)
	} else if !fi.IsDir() {
		return fmt.Errorf("report directory %s: not a directory", filepath.Dir(path))
	}
	return outfile.WriteFile(path, b)
}

func renderHTML(ctx context.Context, r Report) ([]byte, error) {
	if r.Title == "" {
		r.Title = "rdma-bench report"
	}
	pg := page{Report: r, Figures: make([][]template.HTML, len(r.Sections))}
	for i, s := range r.Sections {
		for j, ch := range s.Charts {
			if ch == nil {
				return nil, fmt.Errorf("report %q: section %q: chart %d: %w", r.Title, s.Title, j+1, errNilChart)
			}
			svg, err := renderContext(ctx, ch.inlineSVG)
			if ctx.Err() != nil {
				return nil, err
			}
			if err != nil {
				return nil, fmt.Errorf("report %q: section %q: %w", r.Title, s.Title, err)
			}
			// The SVG is the package's own output, its text escaped by
			// the SVG writer: safe to insert as it is.
			pg.Figures[i] = append(pg.Figures[i], template.HTML(svg))
		}
	}
	var buf bytes.Buffer
	if err := reportTemplate.Execute(&buf, pg); err != nil {
		return nil, fmt.Errorf("report %q: %w", r.Title, err)
	}
	return buf.Bytes(), nil
}

// isNumeric says whether a table cell reads as a number, possibly signed,
// with a unit or per cent after it: "12.5", "-3.1%", "4.2 µs", "1.5x".
func isNumeric(s string) bool {
	f := strings.Fields(strings.TrimSpace(s))
	if len(f) == 0 || len(f) > 2 {
		return false
	}
	n := strings.TrimRight(f[0], "%x×*")
	_, err := strconv.ParseFloat(strings.ReplaceAll(n, ",", ""), 64)
	return err == nil
}
