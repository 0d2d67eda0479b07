package analysis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

// ChartOptions choose the documents' sides and charts, for plot and
// report.
type ChartOptions struct {
	Metric       string // the trend's metric; "" the default of each point
	Labels       string // the labels in order, comma-separated; "" by started_at
	AllowPartial bool   // use runs that were cut short
	CleanOnly    bool   // leave out, point by point, the runs that were not clean
}

// SidesOf loads the documents that paths name and splits them into sides
// by label. Notes on documents left out go to notes. It stops when ctx
// ends, with ctx's cause.
func (c ChartOptions) SidesOf(ctx context.Context, paths []string, notes io.Writer) ([]*document.Document, []*results.Group, error) {
	return c.sidesOf(ctx, "", paths, notes)
}

// sidesOf is SidesOf of the documents a flag names ("--base"; "" for
// the arguments), which its errors name.
func (c ChartOptions) sidesOf(ctx context.Context, flag string, paths []string, notes io.Writer) ([]*document.Document, []*results.Group, error) {
	docs, err := LoadDocs(ctx, notes, paths...)
	if err != nil {
		return nil, nil, loadError(ctx, flag, err)
	}
	var order []string
	if c.Labels != "" {
		order = strings.Split(c.Labels, ",")
	}
	sides, err := results.Groups(docs, order, results.Options{AllowPartial: c.AllowPartial, CleanOnly: c.CleanOnly})
	if err != nil {
		return nil, nil, badInput("%v", err)
	}
	for _, l := range results.LeftOut(sides) {
		fmt.Fprintln(notes, "note: "+l)
	}
	return docs, sides, nil
}

// Charts draws the sides' charts of the kinds asked for (nil: all), by
// kind. It stops when ctx ends, with ctx's cause.
func (c ChartOptions) Charts(ctx context.Context, docs []*document.Document, sides []*results.Group, kinds []string) (map[string][]results.NamedChart, error) {
	caption := results.CaptionOf(docs)
	if l := results.LeftOut(sides); len(l) > 0 {
		caption.Extra = append(caption.Extra, [2]string{"note", l[0]})
	}
	charts, err := results.Charts(ctx, sides, results.ChartOptions{Kinds: kinds, Metric: c.Metric}, caption)
	if err != nil {
		return nil, loadError(ctx, "", err)
	}
	if c.Metric != "" && len(charts["trend"]) == 0 && kinds == nil {
		return nil, badInput("--metric %s: no trend to draw: a trend needs points with %s figures under two labels or more", c.Metric, c.Metric)
	}
	return charts, nil
}

// Plot draws the charts of the documents that paths name, of the kinds
// asked for (nil: every one they have data for), in the order of
// results.ChartKinds. It stops when ctx ends, with ctx's cause.
func (c ChartOptions) Plot(ctx context.Context, paths, kinds []string, notes io.Writer) ([]results.NamedChart, error) {
	docs, sides, err := c.SidesOf(ctx, paths, notes)
	if err != nil {
		return nil, err
	}
	charts, err := c.Charts(ctx, docs, sides, kinds)
	if err != nil {
		return nil, err
	}
	return inOrder(charts), nil
}

func inOrder(charts map[string][]results.NamedChart) []results.NamedChart {
	var all []results.NamedChart
	for _, k := range results.ChartKinds {
		all = append(all, charts[k]...)
	}
	return all
}

// WriteCharts writes every chart as SVG and PNG into dir, as
// plot.WriteAll does: nothing when ctx ends first (the error is then
// ctx's cause). Every other error is about dir or a chart's name: bad
// input.
func WriteCharts(ctx context.Context, dir string, charts []results.NamedChart) ([]string, error) {
	named := make([]plot.Named, len(charts))
	for i, c := range charts {
		named[i] = plot.Named(c)
	}
	written, err := plot.WriteAll(ctx, dir, named)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, inputerr.Wrap(err)
	}
	return written, nil
}

// DrawDocument writes into dir the charts that plot draws of doc once
// saved: doc is read back as a saved document is, and runs cut short are
// drawn too, as the document holds them. They are drawn even after the
// run was interrupted: the figures measured are in them, and one
// document's charts take a moment.
func DrawDocument(dir string, doc *report.Document) ([]string, error) {
	ctx := context.Background()
	enc, err := report.NewEncoder("json")
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := enc.Encode(&buf, doc); err != nil {
		return nil, err
	}
	rd, err := document.Parse(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("reading the document back: %w", err)
	}
	rd.Path = "the measured document"
	docs := []*document.Document{rd}
	sides, err := results.Groups(docs, nil, results.Options{AllowPartial: true})
	if err != nil {
		return nil, err
	}
	charts, err := ChartOptions{AllowPartial: true}.Charts(ctx, docs, sides, nil)
	if err != nil {
		return nil, err
	}
	return WriteCharts(ctx, dir, inOrder(charts))
}

// DocumentPlot is --plot DIR of run and suite: the document the run
// writes, caught on its way to the output, drawn into Dir afterwards as
// plot draws a saved one.
type DocumentPlot struct {
	Dir string
	doc *report.Document
}

// Catch returns enc, made to hand over the document it encodes.
func (p *DocumentPlot) Catch(enc report.Encoder) report.Encoder {
	return catchEncoder{Encoder: enc, doc: &p.doc}
}

// Caught says whether a document was encoded.
func (p *DocumentPlot) Caught() bool { return p.doc != nil }

// Draw writes the charts of the document caught and returns the paths
// written.
func (p *DocumentPlot) Draw() ([]string, error) {
	if p.doc == nil {
		return nil, errors.New("no document was written")
	}
	return DrawDocument(p.Dir, p.doc)
}

// catchEncoder is an output encoder that keeps the document it encodes.
type catchEncoder struct {
	report.Encoder
	doc **report.Document
}

// Encode implements report.Encoder.
func (c catchEncoder) Encode(w io.Writer, doc *report.Document) error {
	*c.doc = doc
	return c.Encoder.Encode(w, doc)
}
