package workloads

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/engine"
	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// DialTimeout bounds connecting to a server.
const DialTimeout = 10 * time.Second

// RunClient runs one point, spec, against the
// server at host:port, and returns what was measured; more tells a
// one-shot server that another point follows. On a failure after the run
// began, the partial result comes back with the error.
//
// Equivalent to: `ib_write_lat HOST` (and the other perftest clients),
// `sockperf ping-pong -i HOST`, `iperf3 -c HOST`.
func RunClient(ctx context.Context, spec point.Resolved, local Local, host string, port int, more bool) (_ *report.Result, err error) {
	defer func() { err = interrupted(ctx, err) }()
	if holdFrom(ctx) != nil && !local.loopback {
		return nil, errHoldRemote
	}
	w, _ := catalog.Lookup(spec.Workload)
	// The program's pages are made resident before a server waits on
	// this side (engine.PrefaultMappings).
	engine.PrefaultMappings()
	conn, err := exchange.Dial(ctx, host, port, DialTimeout)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	// Ctrl-C ends any wait on the connection at once.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	conn.SetTimeout(local.IdleTimeout)
	if _, err := conn.HandshakeToken(exchange.RoleClient, spec.Encode(), more, local.Token); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: %w", errInterrupted, context.Cause(ctx))
		}
		return nil, err
	}
	return newSession(spec, local, w, client, conn, port).run(ctx)
}

// Prepare makes this process's program and libraries resident
// (engine.PrefaultMappings) ahead of its first run. A process that
// measures many runs, such as a fabric rank, calls it once at start, so
// that the page-in (0.4-0.5 s in the soft-RoCE VM) is not inside its first
// round; the runs' own calls then find the mappings done.
func Prepare() { engine.PrefaultMappings() }

// Loopback runs both sides of spec in this process, on one
// device, connected over 127.0.0.1: for CI and single-host checks. The
// server's threads are pinned after the client's: from --cpu, or, without
// it, from the first of the allowed CPUs (the NUMA node's, where placed)
// where there are enough for both sides (apartCPUs). The CPU figures cover both sides, as one process.
func Loopback(ctx context.Context, spec point.Resolved, local Local) (_ *report.Result, err error) {
	defer func() { err = interrupted(ctx, err) }()
	ln, err := exchange.Listen("127.0.0.1", 0)
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	if local.CPU < 0 {
		local.CPU = apartCPUs(2*spec.ThreadCount(), local.placedCPUs())
	}
	srv := local
	srv.ReportInterval, srv.Progress, srv.Intervals = 0, nil, nil
	// Both sides are on one port, whose counters the client reads for
	// both (judgeCounters): the server's own snapshots would be the same
	// files read again, twice a run.
	srv.Counters = false
	srv.loopbackServer = true
	if local.CPU >= 0 {
		srv.CPU = local.CPU + spec.ThreadCount()
	}
	// The pair's own context: cancelling it ends the server, not the
	// caller's (whose cancellation alone is an interruption).
	pair, cancel := context.WithCancel(ctx)
	defer cancel()
	if h := holdFrom(ctx); h != nil {
		local.hold, srv.hold = loopbackHolds(ctx, pair, h)
	}
	sv := &Server{Local: srv}
	served := make(chan error, 1)
	go func() { served <- sv.Serve(pair, ln) }()
	local.loopback = true
	res, err := RunClient(pair, spec, local, "127.0.0.1", ln.Port(), false)
	if err != nil {
		cancel() // a server still waiting for the client gives up
	}
	serr := <-served
	if res != nil {
		res.Peer = nil
		res.CPU.Remote, res.CPU.OneProcess = nil, true
	}
	if serr != nil && !errors.Is(serr, context.Canceled) && !errors.Is(serr, net.ErrClosed) {
		if err == nil {
			err = fmt.Errorf("server side: %w", serr)
		} else {
			// The client's error is often only the consequence (the
			// server closed the connection): say what the server saw.
			err = fmt.Errorf("%w (server side: %v)", err, serr)
		}
	}
	return res, err
}
