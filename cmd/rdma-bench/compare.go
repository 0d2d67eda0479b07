package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/analysis"
	"github.com/rdma-bench/rdma-bench/pkg/compare"
)

func init() {
	register("compare", "compare saved results against a baseline; exit 1 on a regression (a CI gate)", runCompare)
}

func runCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare", "usage: rdma-bench compare [flags] BASE NEW\n       rdma-bench compare [flags] --base-label A --label B PATH...\n\n"+
		"BASE, NEW and PATH are files, directories or quoted glob patterns of saved documents.\n"+
		"exit status: 0 pass, 1 regression, 3 inconclusive (1 with --strict), 2 bad input\n\nflags:\n", stderr)
	var f analysis.CompareFlags
	f.Register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f.Plot = f.PlotDir != ""
	f.Colour = f.Format == "table" && f.OutFile == "" && os.Getenv("NO_COLOR") == "" && isTerminal(stdout)
	out, err := analysis.BuildComparison(ctx, f.CompareOptions, fs.Args(), stderr)
	if err != nil {
		return stopped(ctx, err)
	}
	dst, err := createOutput(f.OutFile, stdout)
	if err != nil {
		return err
	}
	if f.PlotDir != "" {
		if _, err := analysis.WriteCharts(ctx, f.PlotDir, out.Charts); err != nil {
			dst.Abort()
			return stopped(ctx, err)
		}
	}
	if err := dst.CommitBytes(out.Text); err != nil {
		return err
	}
	for _, n := range out.StderrNotes {
		fmt.Fprintf(stderr, "rdma-bench compare: %s\n", n)
	}
	if code := out.Comparison.Gate.ExitCode(); code != compare.ExitPass {
		return &exitStatus{code: code}
	}
	return nil
}

// createOutput starts compare's, gate's and history's --output-file (see
// package outfile; "" or "-" is stdout), so that an unusable one fails
// before anything is measured or written.
func createOutput(path string, stdout io.Writer) (*outfile.File, error) {
	f, err := outfile.CreateTo(path, stdout)
	if err != nil {
		return nil, usageError("--output-file %v", err)
	}
	return f, nil
}
