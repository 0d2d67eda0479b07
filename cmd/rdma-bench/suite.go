package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

func init() {
	register("suite", "RDMA write/read/send latency and bandwidth against TCP, side by side", runSuite)
}

// suiteWorkloads are what the suite measures at every size.
var suiteWorkloads = []string{"write_lat", "read_lat", "send_lat", "tcp_lat", "write_bw", "read_bw", "send_bw", "tcp_bw"}

func runSuite(ctx context.Context, args []string) error {
	fs := newFlagSet("suite")
	var b benchFlags
	var o outputFlags
	addBenchFlags(fs, &b)
	addOutputFlags(fs, &o)
	loopback := fs.Bool("loopback", false, "run both sides in this process, on one device")
	sizes := fs.String("sizes", "2,64,4K,64K,1M", "comma-separated message sizes")
	// Points are short by default: one second each, not a count.
	fs.Lookup("duration").DefValue = "1"
	b.seconds = 1
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: rdma-bench suite HOST [flags]\n       rdma-bench suite --loopback [flags]\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := b.setClock(); err != nil {
		return err
	}
	host := ""
	switch {
	case *loopback && fs.NArg() > 0:
		return usageError("--loopback runs both sides here: drop the host %q", fs.Arg(0))
	case !*loopback && fs.NArg() != 1:
		return usageError("name the server's host (started with rdma-bench server --persistent), or use --loopback")
	case !*loopback:
		host = fs.Arg(0)
	}
	if err := rejectChanged(fs, "size", "all", "rdma-cm"); err != nil {
		return err
	}
	if fs.Changed("iters") && !fs.Changed("duration") {
		b.seconds = 0
	}
	list, err := workloads.ParseSizes(*sizes)
	if err != nil {
		return usageError("--sizes: %v", err)
	}
	var points []point
	for _, s := range list {
		for _, w := range suiteWorkloads {
			points = append(points, point{workload: w, size: s})
		}
	}
	doc, err := start(&b, &o, points, true)
	if err != nil {
		return err
	}
	enc := func(w io.Writer, d *report.Document) error { return o.enc.Encode(w, d) }
	if o.format == report.DefaultEncoder {
		enc = report.WriteComparison
	}
	return measureAll(ctx, &b, &o, doc, points, host, enc)
}

// rejectChanged refuses flags a command does not take.
func rejectChanged(fs *pflag.FlagSet, names ...string) error {
	for _, n := range names {
		if fs.Changed(n) {
			return usageError("--%s does not apply to this command", n)
		}
	}
	return nil
}
