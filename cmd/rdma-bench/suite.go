//go:build cgo

package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

func init() {
	register("suite", "RDMA write/read/send latency and bandwidth against TCP, side by side", runSuite)
}

// suiteWorkloads are what the suite measures at every size: the RDMA
// workloads and their TCP baselines.
var suiteWorkloads = []string{"write_lat", "read_lat", "send_lat", "tcp_lat", "write_bw", "read_bw", "send_bw", "tcp_bw"}

// suitePoint is how long a suite point runs unless -n or -D says otherwise.
const suitePoint = time.Second

func runSuite(ctx context.Context, args []string) error {
	fs := newFlagSet("suite")
	var b benchFlags
	var o outputFlags
	var rep repeatFlags
	var pf plotFlag
	addBenchFlags(fs, &b)
	addOutputFlags(fs, &o, comparisonEncoder)
	addRepeatFlags(fs, &rep)
	addPlotFlag(fs, &pf)
	loopback := fs.Bool("loopback", false, "run both sides in this process, on one device")
	sizes := fs.String("sizes", "2,64,4K,64K,1M", "comma-separated message sizes")
	fs.Lookup("duration").DefValue = "1"
	_ = fs.MarkHidden("rate") // refused below: TCP has no open loop
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: rdma-bench suite HOST [flags]\n       rdma-bench suite --loopback [flags]\n\n")
		fmt.Fprintf(os.Stderr, "Flags that mean something for some of the workloads only (-q, --validate, ...) apply to those.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := rejectChanged(fs, "the suite: it runs every workload at --sizes", "size", "all", "sweep-min", "sweep-max"); err != nil {
		return err
	}
	if err := b.check(); err != nil {
		return err
	}
	if fs.Changed("rate") {
		return usageError("--rate does not apply to the suite: it sets RDMA beside TCP, which has no open loop; use run WORKLOAD --rate")
	}
	if err := o.check(); err != nil {
		return err
	}
	if err := pf.check(&o); err != nil {
		return err
	}
	if err := rep.check(); err != nil {
		return err
	}
	at := target{loopback: *loopback}
	switch {
	case *loopback && fs.NArg() > 0:
		return usageError("--loopback runs both sides here: drop the host %q", fs.Arg(0))
	case !*loopback && fs.NArg() != 1:
		return usageError("name the server's host (started with rdma-bench server --persistent), or use --loopback")
	case !*loopback:
		h, err := checkHost(fs.Arg(0))
		if err != nil {
			return err
		}
		at.host = h
	}
	b.defaultDuration(suitePoint)
	list, err := workloads.ParseSizes(*sizes)
	if err != nil {
		return usageError("--sizes: %v", err)
	}
	var specs []workloads.Spec
	for _, s := range list {
		for _, name := range suiteWorkloads {
			w, _ := workloads.Lookup(name)
			sp := b.spec.Only(w)
			sp.Size = s
			specs = append(specs, sp)
		}
	}
	pts, err := b.resolve(specs, at, false, rep.n)
	if err != nil {
		return err
	}
	return pf.after(runPoints(ctx, &b, &o, pts, at, rep))
}
