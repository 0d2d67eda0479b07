package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/analysis"
	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/history"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

func init() {
	register("history", "follow saved results across sessions and find where they changed; exit 1 on a new regression", runHistory)
}

const historyUsage = `usage: rdma-bench history [flags] PATH...

Orders the sessions of the saved documents PATH names (files, directories
or quoted glob patterns; a session is a document, or documents back to
back) in time, takes each point's median per session, and finds the steps
of every series by E-divisive means with a permutation test. A step that
worsens a metric beyond its threshold and starts among the newest
--recent sessions fails the history.

exit status: 0 steady (every series looked at, no such step), 1 such a
step, 3 no series had sessions enough to look at, 2 bad input

flags:
`

func runHistory(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("history", historyUsage, stderr)
	o := history.Options{Detector: history.Detector{Seed: 1}}
	failOn := fs.String("fail-on", compare.DefaultThresholdSpec, "how large a step must be to fail, by metric: METRIC>+N% (latency, CPU) or METRIC<-N% (bw, msgrate)")
	metrics := fs.String("metrics", "", "metrics to follow, comma-separated (default: lat.p50 of latency points, bw of bandwidth points): "+results.MetricNames())
	fs.Float64Var(&o.Alpha, "alpha", 0.01, "the permutation test's level: the chance a series without a step shows one, per test")
	fs.IntVar(&o.Permutations, "permutations", 499, "the most permutations per test")
	fs.IntVar(&o.MinSegment, "min-segment", 2, "the fewest sessions on each side of a step")
	fs.IntVar(&o.Recent, "recent", 5, "a regression fails only when it starts in the newest this many sessions")
	fs.DurationVar(&o.SessionGap, "session-gap", results.DefaultSessionGap, "documents that start within this of the one before's last run are one session")
	format := fs.StringP("output", "o", "table", "output format: "+strings.Join(history.Formats, ", "))
	outFile := fs.String("output-file", "", "write the output to this file instead of standard output")
	plotDir := fs.String("plot", "", "also draw each series with its steps (SVG and PNG) into this directory")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError("name the documents of the history: files, directories or glob patterns")
	}
	if *format != "table" && *format != "json" {
		return usageError("-o %s: want %s", *format, strings.Join(history.Formats, " or "))
	}
	th, err := compare.ParseThresholds(*failOn)
	if err != nil {
		return usageError("--fail-on: %v", err)
	}
	o.Thresholds = th
	if o.Metrics, err = results.ParseMetrics(*metrics); err != nil {
		return usageError("--metrics %q: %v", *metrics, err)
	}
	if *metrics == "" {
		o.Metrics = nil
	}
	o.Skew = 5 * time.Minute
	if err := o.Check(); err != nil {
		return usageError("%v", err)
	}
	dst, err := createOutput(*outFile, stdout)
	if err != nil {
		return err
	}
	docs, err := analysis.LoadDocs(ctx, stderr, fs.Args()...)
	if err != nil {
		dst.Abort()
		if ctx.Err() != nil {
			return stopped(ctx, err)
		}
		return usageError("%v", err)
	}
	res, err := history.Analyze(ctx, docs, o)
	if err != nil {
		dst.Abort()
		return stopped(ctx, err)
	}
	if *plotDir != "" {
		charts, err := history.Charts(res, results.CaptionOf(docs))
		if err == nil {
			_, err = analysis.WriteCharts(ctx, *plotDir, charts)
		}
		if err != nil {
			dst.Abort()
			return stopped(ctx, err)
		}
	}
	var b bytes.Buffer
	if err := history.Write(&b, res, *format); err != nil {
		dst.Abort()
		return err
	}
	if err := dst.CommitBytes(b.Bytes()); err != nil {
		return err
	}
	if res.ExitCode != history.ExitSteady {
		return &exitStatus{code: res.ExitCode}
	}
	return nil
}
