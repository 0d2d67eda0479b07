//go:build cgo

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

func init() {
	register("server", "wait for a client and run the server side of its workload (RDMA or TCP)", runServer)
}

const serverUsage = `usage: rdma-bench server [WORKLOAD] [flags]

Serves the client's run (a whole sweep), or with --persistent one run after
another until interrupted. A one-shot server refusing a client (token,
parameters, memory) waits for the next; interrupted, it exits 130. Shared parameters given here (-s, -n, ...) and
WORKLOAD pin what clients may run: a client asking for other values is
refused, both values named.

`

func runServer(ctx context.Context, args []string) error {
	fs := newFlagSet("server")
	var b benchFlags
	addBenchFlags(fs, &b)
	persistent := fs.BoolP("persistent", "P", false, "serve one run after another until interrupted")
	bind := fs.String("bind", "", "address to listen on (default: every address; give one to limit who can reach the server)")
	fs.Usage = func() {
		fmt.Fprint(os.Stderr, serverUsage)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageError("unexpected argument %q", fs.Arg(1))
	}
	if err := rejectChanged(fs, "the server: it follows the client's sizes", "all", "sweep-min", "sweep-max"); err != nil {
		return err
	}
	if fs.Changed("report-interval") {
		return usageError("--report-interval belongs on the client: the server's figures go to the client at the end of each run")
	}
	if err := b.check(); err != nil {
		return err
	}
	if err := b.oneRate("server"); err != nil {
		return err
	}
	keys := b.explicitKeys()
	if fs.NArg() == 1 {
		// A workload pins what clients may run: check what was given
		// for it now, not at the first client.
		w, err := workloads.Lookup(fs.Arg(0))
		if err != nil {
			return usageError("%v", err)
		}
		b.spec.Workload = w.Name
		r, _, err := b.spec.Resolve(nil)
		if err != nil {
			return usageError("%v", err)
		}
		if w.Family == workloads.RDMA {
			_, lim, err := workloads.Probe(r, b.local)
			if err != nil {
				return deviceError(err)
			}
			if err := workloads.CheckDevice(r, b.local, w, lim); err != nil {
				return usageError("%v", err)
			}
		}
		if err := b.local.CheckMemory(r.Memory(false, 1), "server"); err != nil {
			return usageError("%v", err)
		}
		keys = append(keys, "workload")
	} else if b.spec.Iterations != 0 && b.spec.Duration != 0 {
		return usageError("-n (iterations) and -D (duration) cannot go together: choose one")
	} else if fs.Changed("ib-dev") || fs.Changed("ib-port") || fs.Changed("gid-index") || b.local.ODP {
		// No workload: the device, port and GID named (and --odp) are
		// still checked now, not at the first client.
		probe, _, err := workloads.NewSpec("write_lat").Resolve(nil)
		var lim workloads.DeviceLimits
		if err == nil {
			_, lim, err = workloads.Probe(probe, b.local)
		}
		if err != nil {
			return deviceError(err)
		}
		if b.local.ODP {
			return usageError("%v", workloads.CheckODPDevice(lim))
		}
	}
	if err := b.local.CheckCPUs(1); err != nil {
		return usageError("%v", err)
	}
	ln, err := exchange.Listen(*bind, b.port)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return err
		}
		return usageError("--bind %q: %v", *bind, err)
	}
	defer ln.Close()
	fmt.Fprintf(os.Stderr, "rdma-bench server listening on %s\n", ln.Addr())
	sv := &workloads.Server{Local: b.local, Explicit: b.spec.Explicit(keys), Persistent: *persistent, Retry: true, Log: os.Stderr}
	err = sv.Serve(ctx, ln)
	switch {
	case ctx.Err() != nil && !*persistent:
		// A one-shot server's run, or its wait for one, was cut short:
		// like an interrupted run, not a success.
		return &exitStatus{code: 130, msg: "interrupted: " + context.Cause(ctx).Error()}
	case errors.Is(err, context.Canceled):
		return nil
	}
	return err
}
