//go:build cgo

package main

import (
	"context"
	"io"
	"os"

	"github.com/rdma-bench/rdma-bench/pkg/report"

	"github.com/rdma-bench/rdma-bench/pkg/bench"
	"github.com/rdma-bench/rdma-bench/pkg/point"
)

func init() {
	register("suite", "RDMA write/read/send latency and bandwidth against TCP, side by side", runSuite)
}

func runSuite(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("suite", "usage: rdma-bench suite HOST [flags]\n       rdma-bench suite --loopback [flags]\n\n"+"Flags that mean something for some of the workloads only (-q, --validate, ...) apply to those.\n\n", stderr)
	var b bench.Flags
	o := bench.Output{Stdout: stdout}
	var rep bench.Repeat
	var ex bench.Expect
	var pf plotFlag
	b.Register(fs)
	o.Register(fs, report.ComparisonEncoder)
	rep.Register(fs)
	ex.Register(fs)
	addPlotFlag(fs, &pf)
	loopback := fs.Bool("loopback", false, "run both sides in this process, on one device")
	sizes := fs.String("sizes", "2,64,4K,64K,1M", "comma-separated message sizes")
	fs.Lookup("duration").DefValue = "1"
	_ = fs.MarkHidden("rate") // refused below: TCP has no open loop
	_ = fs.MarkHidden("loaders")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := bench.RejectChanged(fs, "the suite: it runs every workload at --sizes", "size", "all", "sweep-min", "sweep-max"); err != nil {
		return err
	}
	if err := b.Check(); err != nil {
		return err
	}
	if fs.Changed("loaders") {
		return usageError("--loaders does not apply to the suite: loaded latency is an open loop, which TCP has not; use run WORKLOAD --rate R --loaders 0,1,2")
	}
	if fs.Changed("rate") {
		return usageError("--rate does not apply to the suite: it sets RDMA beside TCP, which has no open loop; use run WORKLOAD --rate")
	}
	if err := o.Check(); err != nil {
		return err
	}
	if err := pf.check(&o); err != nil {
		return err
	}
	if err := rep.Check(); err != nil {
		return err
	}
	if err := ex.Check(); err != nil {
		return err
	}
	at, err := bench.SuiteTarget(fs.Args(), *loopback)
	if err != nil {
		return err
	}
	at.Port = b.Port
	b.DefaultDuration(bench.SuitePoint)
	list, err := point.ParseSizes(*sizes)
	if err != nil {
		return usageError("--sizes: %v", err)
	}
	pts, err := bench.Resolve(b.Local, b.SuiteSpecs(list), at, false, rep.N, stderr)
	if err != nil {
		return deviceError(err)
	}
	if err := ex.CheckPlan(pts); err != nil {
		return err
	}
	plan := bench.Plan{Points: pts, At: at, Repeat: rep, Output: &o, Doc: newDocument(os.Args), Log: stderr, Expect: &ex}
	return pf.after(bench.Run(ctx, plan), stderr)
}
