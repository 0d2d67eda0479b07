package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

func init() {
	register("run", "run a workload as the client, or both sides with --loopback", runRun)
}

const runUsage = `usage: rdma-bench run WORKLOAD HOST [flags]
       rdma-bench run WORKLOAD --loopback [flags]

workloads: %s
`

func runRun(ctx context.Context, args []string) error {
	fs := newFlagSet("run")
	var b benchFlags
	var o outputFlags
	addBenchFlags(fs, &b)
	addOutputFlags(fs, &o)
	loopback := fs.Bool("loopback", false, "run server and client in this process, on one device")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, runUsage, allWorkloads())
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := b.setClock(); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError("name a workload: %s", allWorkloads())
	}
	name, host := fs.Arg(0), ""
	switch {
	case fs.NArg() > 2:
		return usageError("unexpected argument %q", fs.Arg(2))
	case *loopback && fs.NArg() == 2:
		return usageError("--loopback runs both sides here: drop the host %q", fs.Arg(1))
	case !*loopback && fs.NArg() < 2:
		return usageError("name the server's host, or use --loopback")
	case fs.NArg() == 2:
		host = fs.Arg(1)
	}
	if _, err := workloads.Lookup(name); err != nil && !isTCP(name) {
		return usageError("unknown workload %q: choose one of %s", name, allWorkloads())
	}
	sizes, err := b.sizes()
	if err != nil {
		return err
	}
	if _, err := b.duration(); err != nil {
		return err
	}
	var points []point
	for i, s := range sizes {
		points = append(points, point{workload: name, size: s, more: i+1 < len(sizes)})
	}
	doc, err := start(&b, &o, points, !isTCP(name))
	if err != nil {
		return err
	}
	return measureAll(ctx, &b, &o, doc, points, host, func(w io.Writer, d *report.Document) error { return o.enc.Encode(w, d) })
}

// start checks every point before anything is created or connected,
// opens the output, and begins the document. Live figures
// (--report-interval) go to stderr.
func start(b *benchFlags, o *outputFlags, points []point, rdma bool) (*report.Document, error) {
	b.cfg.Progress = os.Stderr
	for _, p := range points {
		if err := b.check(p); err != nil {
			return nil, err
		}
	}
	if err := o.open(); err != nil {
		return nil, err
	}
	doc := newDocument()
	if rdma {
		if dev, err := workloads.DescribeDevice(b.cfg); err == nil {
			doc.Device = dev
		}
	}
	return doc, nil
}

// measureAll runs every point in order, reporting progress, and writes
// what was measured even when a point failed or Ctrl-C interrupted.
func measureAll(ctx context.Context, b *benchFlags, o *outputFlags, doc *report.Document, points []point, host string, enc func(io.Writer, *report.Document) error) error {
	var runErr error
	for i, p := range points {
		res, err := b.measure(ctx, p, host)
		if res != nil {
			doc.Results = append(doc.Results, res)
		}
		if err != nil {
			size := p.size
			if res != nil {
				size = res.SizeBytes
			}
			if size > 0 {
				runErr = fmt.Errorf("%s %d bytes: %w", p.workload, size, err)
			} else {
				runErr = fmt.Errorf("%s: %w", p.workload, err)
			}
			break
		}
		if len(points) > 1 {
			fmt.Fprintf(os.Stderr, "[%d/%d] %s %d bytes done\n", i+1, len(points), p.workload, p.size)
		}
	}
	if len(doc.Results) == 0 {
		o.out.Close()
		return runErr
	}
	if err := o.write(doc, enc); err != nil {
		return errors.Join(runErr, err)
	}
	return runErr
}
