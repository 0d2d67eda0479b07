package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/pkg/plot"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

func init() {
	register("plot", "draw saved results as SVG and PNG charts", runPlot)
}

// chartFlags choose the documents' sides and charts, for plot and report.
type chartFlags struct {
	metric, labels          string
	allowPartial, cleanOnly bool
}

func addChartFlags(fs *pflag.FlagSet, c *chartFlags) {
	fs.StringVar(&c.metric, "metric", "", "the trend's metric: "+results.MetricNames()+" (default lat.p50 of latency points and bw of bandwidth points)")
	fs.StringVar(&c.labels, "labels", "", "the labels in order, comma-separated (default: by the documents' started_at)")
	fs.BoolVar(&c.allowPartial, "allow-partial", false, "use runs that were cut short (status partial)")
	fs.BoolVar(&c.cleanOnly, "clean-only", false, "refuse runs whose port counters say they were not clean (a chart draws each result's figures, over all its runs)")
}

// sidesOf loads documents and splits them into sides by label.
func (c chartFlags) sidesOf(paths []string) ([]*results.Document, []*results.Side, error) {
	docs, err := loadDocs(paths...)
	if err != nil {
		return nil, nil, usageError("%v", err)
	}
	var order []string
	if c.labels != "" {
		order = strings.Split(c.labels, ",")
	}
	sides, err := results.Sides(docs, order, results.Options{AllowPartial: c.allowPartial, RefuseUnclean: c.cleanOnly})
	if err != nil {
		return nil, nil, usageError("%v", err)
	}
	return docs, sides, nil
}

// charts draws the sides' charts of the kinds asked for (nil: all).
func (c chartFlags) charts(docs []*results.Document, sides []*results.Side, kinds []string) (map[string][]results.NamedChart, error) {
	charts, err := results.Charts(sides, results.ChartOptions{Kinds: kinds, Metric: c.metric}, results.CaptionOf(docs))
	if err != nil {
		return nil, usageError("%v", err)
	}
	if c.metric != "" && len(charts["trend"]) == 0 && kinds == nil {
		return nil, usageError("--metric %s: no trend to draw: a trend needs points with %s figures under two labels or more", c.metric, c.metric)
	}
	return charts, nil
}

func runPlot(_ context.Context, args []string) error {
	fs := newFlagSet("plot")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: rdma-bench plot [flags] FILE...\n\nFILE: saved documents, directories or quoted glob patterns\n\nflags:\n")
		fs.PrintDefaults()
	}
	var c chartFlags
	dir := fs.String("dir", "plots", "directory to write the charts into (created when missing)")
	kinds := fs.String("charts", "", "charts to draw, comma-separated: "+strings.Join(results.ChartKinds, ", ")+" (default: every one the documents have data for)")
	addChartFlags(fs, &c)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError("name the documents to plot: files, directories or glob patterns")
	}
	var want []string
	if fs.Changed("charts") {
		for _, k := range strings.Split(*kinds, ",") {
			want = append(want, strings.TrimSpace(k))
		}
	}
	docs, sides, err := c.sidesOf(fs.Args())
	if err != nil {
		return err
	}
	charts, err := c.charts(docs, sides, want)
	if err != nil {
		return err
	}
	var all []results.NamedChart
	for _, k := range results.ChartKinds {
		all = append(all, charts[k]...)
	}
	written, err := writeCharts(*dir, all)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %d charts (SVG and PNG) into %s\n", len(written)/2, *dir)
	return nil
}

// writeCharts writes every chart as SVG and PNG into dir, creating it
// when missing. On error it removes what it wrote (and dir, if it made
// it), so that nothing partial is left.
func writeCharts(dir string, charts []results.NamedChart) (written []string, err error) {
	created := false
	if fi, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, usageError("chart directory %s: %v", dir, unwrapPath(err))
		}
		created = true
	} else if err != nil {
		return nil, usageError("chart directory %s: %v", dir, unwrapPath(err))
	} else if !fi.IsDir() {
		return nil, usageError("chart directory %s: not a directory", dir)
	}
	defer func() {
		if err != nil {
			removeAll(written)
			if created {
				os.Remove(dir)
			}
		}
	}()
	for _, c := range charts {
		svg, png, err := plot.Write(c.Chart, dir, c.Name)
		if err != nil {
			return written, usageError("%v", err)
		}
		written = append(written, svg, png)
	}
	return written, nil
}

func removeAll(paths []string) {
	for _, p := range paths {
		os.Remove(p)
	}
}

// unwrapPath drops the path from an *os.PathError: the message names it.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// loadDocs loads the run documents that paths name, with a note on
// standard error for each document of another kind (a fabric sweep's)
// that a directory or a pattern held and that was left out.
func loadDocs(paths ...string) ([]*results.Document, error) {
	return results.LoadNoting(func(s string) { fmt.Fprintln(os.Stderr, "note: "+s) }, paths...)
}
