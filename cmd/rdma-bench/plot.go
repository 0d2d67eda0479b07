package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/analysis"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

func init() {
	register("plot", "draw saved results as SVG and PNG charts", runPlot)
}

func runPlot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plot", "usage: rdma-bench plot [flags] FILE...\n\nFILE: saved documents, directories or quoted glob patterns;\nor one fabric document, whose heat maps are drawn as fabric --plot draws them,\nor one gate document, whose rows' changes are drawn against their thresholds\n\nflags:\n", stderr)
	var c analysis.ChartOptions
	dir := fs.String("dir", "plots", "directory to write the charts into (created when missing)")
	kinds := fs.String("charts", "", "charts to draw, comma-separated: "+strings.Join(results.ChartKinds, ", ")+" (default: every one the documents have data for)")
	c.Register(fs)
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
	fab, gd, err := analysis.LoadOther(ctx, fs.Args())
	if err != nil {
		return stopped(ctx, err)
	}
	var charts []results.NamedChart
	switch {
	case fab != nil && want != nil:
		return usageError("--charts: a fabric document's charts are its heat maps, one per metric; leave --charts out")
	case fab != nil:
		charts, err = analysis.FabricCharts(fab, stderr)
	case gd != nil && want != nil:
		return usageError("--charts: a gate document has one chart, its rows' changes; leave --charts out")
	case gd != nil:
		charts, err = analysis.GateCharts(gd)
	default:
		charts, err = c.Plot(ctx, fs.Args(), want, stderr)
	}
	if err != nil {
		return stopped(ctx, err)
	}
	written, err := analysis.WriteCharts(ctx, *dir, charts)
	if err != nil {
		return stopped(ctx, err)
	}
	fmt.Fprintf(stderr, "wrote %d charts (SVG and PNG) into %s\n", len(written)/2, *dir)
	return nil
}

// unwrapPath drops the path from an *os.PathError: the message names it.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
