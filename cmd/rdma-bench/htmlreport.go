package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/analysis"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
)

func init() {
	register("report", "write saved results, their charts and a comparison as one self-contained HTML file", runReport)
}

func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", "usage: rdma-bench report [flags] FILE... [-o report.html] [--base BASE...]\n\n"+
		"FILE and BASE: saved documents, directories or quoted glob patterns;\nor one fabric document, whose matrices, findings and heat maps are written,\nor one gate document, whose table, notes and chart are written\n\nflags:\n", stderr)
	var o analysis.ReportOptions
	out := fs.StringP("output", "o", "report.html", "the HTML file to write: "+outfile.Rules)
	o.Register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError("name the documents to report: files, directories or glob patterns")
	}
	if fi, err := os.Stat(filepath.Dir(*out)); err != nil || !fi.IsDir() {
		return usageError("-o %s: directory %s does not exist", *out, filepath.Dir(*out))
	}
	fab, gd, err := analysis.LoadOther(ctx, fs.Args())
	if err != nil {
		return stopped(ctx, err)
	}
	var r plot.Report
	switch {
	case fab != nil && len(o.Bases) > 0:
		return usageError("--base: a fabric document's report compares nothing; leave --base out")
	case fab != nil:
		r, err = analysis.FabricReport(ctx, o.Title, fab, stderr)
	case gd != nil && len(o.Bases) > 0:
		return usageError("--base: a gate document compares its own two sides; leave --base out")
	case gd != nil:
		r, err = analysis.GateReport(o.Title, gd)
	default:
		r, err = analysis.BuildReport(ctx, o, fs.Args(), stderr)
	}
	if err != nil {
		return stopped(ctx, err)
	}
	if err := plot.WriteHTMLFile(ctx, *out, r); err != nil {
		if ctx.Err() != nil {
			return stopped(ctx, err)
		}
		return usageError("-o %s: %v", *out, unwrapPath(err))
	}
	fmt.Fprintf(stderr, "wrote %s\n", *out)
	return nil
}
