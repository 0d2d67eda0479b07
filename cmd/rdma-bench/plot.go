package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/pkg/analysis"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

func init() {
	register("plot", "draw saved results as SVG and PNG charts", runPlot)
}

// addChartFlags registers the flags that choose the documents' sides and
// charts, of plot and report.
func addChartFlags(fs *pflag.FlagSet, c *analysis.ChartOptions) {
	fs.StringVar(&c.Metric, "metric", "", "the trend's metric: "+results.MetricNames()+" (default lat.p50 of latency points and bw of bandwidth points)")
	fs.StringVar(&c.Labels, "labels", "", "the labels in order, comma-separated (default: by the documents' started_at)")
	fs.BoolVar(&c.AllowPartial, "allow-partial", false, "use runs that were cut short (status partial)")
	fs.BoolVar(&c.CleanOnly, "clean-only", false, "refuse runs whose port counters say they were not clean (a chart draws each result's figures, over all its runs)")
}

func runPlot(_ context.Context, args []string) error {
	fs := newFlagSet("plot")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: rdma-bench plot [flags] FILE...\n\nFILE: saved documents, directories or quoted glob patterns\n\nflags:\n")
		fs.PrintDefaults()
	}
	var c analysis.ChartOptions
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
	charts, err := c.Plot(fs.Args(), want, os.Stderr)
	if err != nil {
		return err
	}
	written, err := writeCharts(*dir, charts)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %d charts (SVG and PNG) into %s\n", len(written)/2, *dir)
	return nil
}

// writeCharts writes every chart as SVG and PNG into dir, creating it
// when missing; on error nothing partial is left (analysis.WriteCharts).
func writeCharts(dir string, charts []results.NamedChart) ([]string, error) {
	written, err := analysis.WriteCharts(dir, charts)
	return written, err
}

// unwrapPath drops the path from an *os.PathError: the message names it.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
