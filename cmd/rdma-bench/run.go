package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

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

func runRun(args []string) error {
	fs := newFlagSet("run")
	var b benchFlags
	var o outputFlags
	addBenchFlags(fs, &b)
	addOutputFlags(fs, &o)
	loopback := fs.Bool("loopback", false, "run server and client in this process, on one device")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, runUsage, strings.Join(workloads.Names(), ", "))
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError("name a workload: %s", strings.Join(workloads.Names(), ", "))
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
	if _, err := workloads.Lookup(name); err != nil {
		return usageError("%v", err)
	}
	if b.rdmaCM {
		return usageError("--rdma-cm: connecting with rdma_cm is not available in this build")
	}
	sizes, err := b.sizes()
	if err != nil {
		return err
	}
	cfg := b.cfg
	cfg.Workload = name
	cfg.Progress = os.Stderr
	if cfg.Duration, err = b.duration(); err != nil {
		return err
	}
	// Check every size before anything is created or connected.
	for _, s := range sizes {
		c := cfg
		c.Size = s
		if _, err := c.Normalize(); err != nil {
			return usageError("%v", err)
		}
	}
	if err := o.open(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	doc := newDocument()
	if dev, err := workloads.DescribeDevice(cfg); err == nil {
		doc.Device = dev
	}
	var runErr error
	for i, s := range sizes {
		c := cfg
		c.Size = s
		c.More = i+1 < len(sizes)
		var res *report.Result
		if *loopback {
			res, runErr = workloads.Loopback(ctx, c)
		} else {
			res, runErr = workloads.RunClient(ctx, c, host, b.port)
		}
		if res != nil {
			doc.Results = append(doc.Results, res)
		}
		if runErr != nil {
			if len(sizes) > 1 {
				runErr = fmt.Errorf("size %d: %w", c.Size, runErr)
			}
			break
		}
		if len(sizes) > 1 {
			fmt.Fprintf(os.Stderr, "[%d/%d] %s %d bytes done\n", i+1, len(sizes), name, c.Size)
		}
	}
	// What was measured is reported even when the run failed or was
	// interrupted.
	if len(doc.Results) > 0 {
		if err := o.write(doc); err != nil {
			return errors.Join(runErr, err)
		}
	} else {
		o.out.Close()
	}
	return runErr
}
