package workloads

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// DialTimeout bounds connecting to a server.
const DialTimeout = 10 * time.Second

// RunClient runs one point, spec (resolved: see Spec.Resolve), against the
// server at host:port, and returns what was measured; more tells a
// one-shot server that another point follows. On a failure after the run
// began, the partial result comes back with the error.
//
// Equivalent to: `ib_write_lat HOST` (and the other perftest clients),
// `sockperf ping-pong -i HOST`, `iperf3 -c HOST`.
func RunClient(ctx context.Context, spec Spec, local Local, host string, port int, more bool) (*report.Result, error) {
	spec, _, err := spec.Resolve(nil)
	if err != nil {
		return nil, err
	}
	w, _ := Lookup(spec.Workload)
	conn, err := exchange.Dial(ctx, host, port, DialTimeout)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	conn.SetTimeout(local.IdleTimeout)
	if _, err := conn.Handshake(exchange.RoleClient, spec.Encode(), more); err != nil {
		return nil, err
	}
	return newSession(spec, local, w, client, conn, port).run(ctx)
}

// Server serves clients, RDMA and TCP workloads alike: each says what to
// run; the server checks it against the parameters set on its own command
// line and its device, then runs its side.
type Server struct {
	// Local holds the server's own settings: device, port, GID, CPU.
	Local Local
	// Explicit are the shared parameters set on the server's command
	// line, in their wire form (Spec.Explicit): a client asking for other
	// values is refused, both values named.
	Explicit map[string]string
	// Persistent serves one run after another until ctx ends; otherwise
	// the server ends after the run it served (a whole sweep).
	Persistent bool
	// Log receives one line per served run; nil discards it.
	Log io.Writer
}

// Serve accepts clients on ln until ctx ends (persistent) or one run (a
// whole sweep) is over. A persistent server logs a failed run and serves
// the next client.
//
// Equivalent to: `ib_write_lat` (server side), `sockperf server`, `iperf3 -s`.
func (sv *Server) Serve(ctx context.Context, ln *exchange.Listener) error {
	log := sv.Log
	if log == nil {
		log = io.Discard
	}
	for {
		conn, err := ln.Accept(ctx)
		if err != nil {
			if ctx.Err() != nil && sv.Persistent {
				return nil
			}
			return err
		}
		peer := conn.RemoteAddr()
		what, more, err := sv.serveOne(ctx, conn, ln.Port())
		conn.Close()
		if err != nil {
			fmt.Fprintf(log, "%s from %s failed: %v\n", what, peer, err)
		} else {
			fmt.Fprintf(log, "served %s to %s\n", what, peer)
		}
		if !sv.Persistent && (err != nil || !more) {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// serveOne serves one run: what names it for the log; more reports that
// the client announced another (the next size of a sweep).
func (sv *Server) serveOne(ctx context.Context, conn *exchange.Conn, port int) (what string, more bool, err error) {
	conn.SetTimeout(sv.Local.IdleTimeout)
	what = "a run"
	peer, err := conn.Handshake(exchange.RoleServer, sv.Explicit, false)
	if err != nil {
		return what, false, err
	}
	spec, err := DecodeSpec(peer.Params)
	if err == nil {
		spec, _, err = spec.Resolve(nil)
	}
	if err == nil {
		// Only a valid workload name reaches the log.
		what = fmt.Sprintf("%s %d bytes", spec.Workload, spec.Size)
		err = sv.Local.CheckCPUs(spec.threads())
	}
	if err != nil {
		err = fmt.Errorf("client asked for an invalid run: %w", err)
		conn.SendError(err)
		return what, false, err
	}
	w, _ := Lookup(spec.Workload)
	_, err = newSession(spec, sv.Local, w, server, conn, port).run(ctx)
	return what, peer.More, err
}

// Loopback runs both sides of spec (resolved) in this process, on one
// device, connected over 127.0.0.1: for CI and single-host checks. The
// server's threads are pinned after the client's (with --cpu). The CPU
// figures then cover both sides, as one process.
func Loopback(ctx context.Context, spec Spec, local Local) (*report.Result, error) {
	ln, err := exchange.Listen("127.0.0.1", 0)
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	srv := local
	srv.ReportInterval, srv.Progress = 0, nil
	if local.CPU >= 0 {
		srv.CPU = local.CPU + spec.threads()
	}
	sv := &Server{Local: srv}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- sv.Serve(ctx, ln) }()
	res, err := RunClient(ctx, spec, local, "127.0.0.1", ln.Port(), false)
	if err != nil {
		cancel() // a server still waiting for the client gives up
	}
	serr := <-served
	if res != nil {
		res.Peer = nil
		res.CPU.Remote, res.CPU.OneProcess = nil, true
	}
	if err == nil && serr != nil && !errors.Is(serr, context.Canceled) && !errors.Is(serr, net.ErrClosed) {
		err = fmt.Errorf("server side: %w", serr)
	}
	return res, err
}
