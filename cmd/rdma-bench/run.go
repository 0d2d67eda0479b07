//go:build cgo

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/bench"
	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

func init() {
	register("run", "run a workload as the client, or both sides with --loopback", runRun)
}

const runUsage = `usage: rdma-bench run WORKLOAD HOST [flags]
       rdma-bench run WORKLOAD --loopback [flags]

workloads: %s

perftest's spellings are taken too (--post_list, -A FETCH_AND_ADD, -S,
--report_gbits, ...); its other flags are refused saying what to use
instead: docs/perftest-flags.md. -o perftest prints perftest's columns,
the caveats of their rows on stderr.
`

func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runTo(ctx, args, os.Args, stdout, stderr)
}

// runTo is the run command writing to stdout and stderr; cmdline is the
// whole command line the document records (the gate's worker runs it
// in-process, for a run it was asked for).
func runTo(ctx context.Context, args, cmdline []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", fmt.Sprintf(runUsage, strings.Join(catalog.Names(), ", ")), stderr)
	var b bench.Flags
	var o bench.Output
	var rep bench.Repeat
	var ex bench.Expect
	var pf plotFlag
	b.Register(fs)
	o.Register(fs, report.DefaultEncoder)
	rep.Register(fs)
	ex.Register(fs)
	addPlotFlag(fs, &pf)
	loopback := fs.Bool("loopback", false, "run server and client in this process, on one device")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := b.Check(); err != nil {
		return err
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
	at, name, err := bench.RunTarget(fs.Args(), *loopback)
	if err != nil {
		return err
	}
	at.Port = b.Port
	w, err := bench.LookupWorkload(name)
	if err != nil {
		return err
	}
	if err := o.CheckWorkload(w); err != nil {
		return err
	}
	if err := bench.CheckRDMAFlags(fs, []string{w.Name}); err != nil {
		return err
	}
	if err := b.OneSweep(); err != nil {
		return err
	}
	sizes, err := b.Sizes()
	if err != nil {
		return err
	}
	pts, err := bench.Resolve(b.Local, b.RunSpecs(w.Name, sizes), at, sizes != nil, rep.N, stderr)
	if err != nil {
		return deviceError(err)
	}
	if err := ex.CheckPlan(pts); err != nil {
		return err
	}
	o.Stdout = stdout
	plan := bench.Plan{Points: pts, At: at, Repeat: rep, Output: &o, Doc: newDocument(cmdline), Log: stderr, Expect: &ex}
	return pf.after(bench.Run(ctx, plan), stderr)
}
