//go:build cgo

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/rdma-bench/rdma-bench/pkg/bench"
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

func runServer(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("server", serverUsage, stderr)
	var b bench.Flags
	b.Register(fs)
	persistent := fs.BoolP("persistent", "P", false, "serve one run after another until interrupted")
	bind := fs.String("bind", "", "address to listen on (default: every address; give one to limit who can reach the server)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageError("unexpected argument %q", fs.Arg(1))
	}
	if err := bench.RejectChanged(fs, "the server: it follows the client's sizes", "all", "sweep-min", "sweep-max"); err != nil {
		return err
	}
	if fs.Changed("report-interval") {
		return usageError("--report-interval belongs on the client: the server's figures go to the client at the end of each run")
	}
	if err := b.Check(); err != nil {
		return err
	}
	if err := b.OneRate("server"); err != nil {
		return err
	}
	keys, err := b.CheckServer(fs.Arg(0))
	if err != nil {
		return deviceError(err)
	}
	ln, err := exchange.Listen(*bind, b.Port)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return err
		}
		return usageError("--bind %q: %v", *bind, err)
	}
	defer ln.Close()
	fmt.Fprintf(stderr, "rdma-bench server listening on %s\n", ln.Addr())
	if dev, why := workloads.ChooseDevice(b.Local.Device); dev != "" {
		fmt.Fprintf(stderr, "rdma-bench server: RDMA runs on device %s (%s)\n", dev, why)
	}
	sv := &workloads.Server{Local: b.Local, Explicit: b.Spec.Explicit(keys), Persistent: *persistent, Retry: true, Log: stderr}
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
