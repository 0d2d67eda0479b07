package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/analysis"
	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

func init() {
	register("compare", "compare saved results against a baseline; exit 1 on a regression (a CI gate)", runCompare)
}

func runCompare(_ context.Context, args []string) error {
	fs := newFlagSet("compare")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: rdma-bench compare [flags] BASE NEW\n       rdma-bench compare [flags] --base-label A --label B PATH...\n\n"+
			"BASE, NEW and PATH are files, directories or quoted glob patterns of saved documents.\n"+
			"exit status: 0 pass, 1 regression, 3 inconclusive (1 with --strict), 2 bad input\n\nflags:\n")
		fs.PrintDefaults()
	}
	var o analysis.CompareOptions
	var outFile, plotDir string
	fs.StringVar(&o.FailOn, "fail-on", compare.DefaultThresholdSpec, "gate thresholds: METRIC>+N% for latency and CPU, METRIC<-N% for bw and msgrate")
	fs.BoolVar(&o.Strict, "strict", false, "an inconclusive gated row fails the gate (exit 1, not 3)")
	fs.StringVarP(&o.Format, "output", "o", "table", "output format: "+strings.Join(compare.Formats, ", "))
	fs.StringVar(&outFile, "output-file", "", "write the output to this file instead of standard output: "+outfile.Rules)
	fs.StringArrayVar(&o.Ignore, "ignore-param", nil, "compare points that differ in this measured parameter (repeatable): "+strings.Join(results.IgnorableParams, ", "))
	fs.BoolVar(&o.AllowPartial, "allow-partial", false, "compare runs that were cut short (status partial)")
	fs.BoolVar(&o.CleanOnly, "clean-only", false, "leave out, point by point, the runs whose port counters say they were not clean (each format counts them)")
	fs.StringVar(&o.Metrics, "metrics", "", "metrics to compare (default all): "+results.MetricNames())
	fs.StringVar(&plotDir, "plot", "", "also write the comparison's charts (SVG and PNG) into this directory")
	fs.StringVar(&o.BaseLabel, "base-label", "", "take the base side from the documents labelled this")
	fs.StringVar(&o.Label, "label", "", "take the new side from the documents labelled this")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o.Plot = plotDir != ""
	o.Colour = o.Format == "table" && outFile == "" && os.Getenv("NO_COLOR") == "" && isatty.IsTerminal(os.Stdout.Fd())
	out, err := analysis.BuildComparison(o, fs.Args(), os.Stderr)
	if err != nil {
		return err
	}
	dst, err := createOutput(outFile)
	if err != nil {
		return err
	}
	if plotDir != "" {
		if _, err := analysis.WriteCharts(plotDir, out.Charts); err != nil {
			dst.Abort()
			return err
		}
	}
	if err := dst.CommitBytes(out.Text); err != nil {
		return err
	}
	for _, n := range out.StderrNotes {
		fmt.Fprintf(os.Stderr, "rdma-bench compare: %s\n", n)
	}
	if code := out.Report.Gate.ExitCode(); code != compare.ExitPass {
		return &exitStatus{code: code}
	}
	return nil
}

// createOutput starts compare's and gate's --output-file (see package
// outfile; "" or "-" is standard output), so that an unusable one fails
// before anything is measured or written.
func createOutput(path string) (*outfile.File, error) {
	f, err := outfile.Create(path)
	if err != nil {
		return nil, usageError("--output-file %v", err)
	}
	return f, nil
}
