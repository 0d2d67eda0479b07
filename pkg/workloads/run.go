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

// RunClient runs cfg against the server at host:port and returns what
// was measured. On failure after the run started, the partial result is
// returned with the error.
//
// Equivalent to: `ib_write_lat HOST` (and the other perftest clients).
func RunClient(ctx context.Context, cfg Config, host string, port int) (*report.Result, error) {
	w, err := cfg.Normalize()
	if err != nil {
		return nil, err
	}
	conn, err := exchange.Dial(ctx, host, port, DialTimeout)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if _, err := conn.Handshake(exchange.RoleClient, cfg.peerParams()); err != nil {
		return nil, err
	}
	cfg.CMPort = port
	s := &session{cfg: &cfg, w: w, role: client, conn: conn}
	return s.run(ctx)
}

// Server serves clients: each says what to run; the server checks it
// against the parameters given on its own command line (explicit) and its
// device, then runs its side.
type Server struct {
	// Base holds the server's local settings: device, port, GID, CPU.
	Base Config
	// Explicit are the shared parameters set on the server's command
	// line: a client asking for other values is refused.
	Explicit map[string]string
	// Log receives one line per served run; nil discards it.
	Log io.Writer
}

// Serve accepts clients on ln until ctx ends: one run, or with persistent
// one run after another (a failed run is logged and the next client
// served).
//
// Equivalent to: `ib_write_lat` (server side), with --persistent `-P`-like
// serving in a loop.
func (sv *Server) Serve(ctx context.Context, ln *exchange.Listener, persistent bool) error {
	log := sv.Log
	if log == nil {
		log = io.Discard
	}
	for {
		conn, err := ln.Accept(ctx)
		if err != nil {
			return err
		}
		more, err := sv.serveOne(ctx, conn, ln.Port())
		conn.Close()
		if !persistent && (err != nil || !more) {
			return err
		}
		if err != nil {
			fmt.Fprintf(log, "run from %s failed: %v\n", conn.RemoteAddr(), err)
		} else {
			fmt.Fprintf(log, "served %s\n", conn.RemoteAddr())
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// serveOne serves one run; more reports that the client announced
// another (the next size of a sweep).
func (sv *Server) serveOne(ctx context.Context, conn *exchange.Conn, port int) (more bool, err error) {
	peer, err := conn.Handshake(exchange.RoleServer, sv.Explicit)
	if err != nil {
		return false, err
	}
	cfg := sv.Base
	if err := cfg.applyPeerParams(peer); err != nil {
		conn.SendError(err)
		return false, err
	}
	w, err := cfg.Normalize()
	if err != nil {
		err = fmt.Errorf("client asked for an invalid run: %w", err)
		conn.SendError(err)
		return false, err
	}
	cfg.CMPort = port
	s := &session{cfg: &cfg, w: w, role: server, conn: conn}
	_, err = s.run(ctx)
	return cfg.More, err
}

// Loopback runs both sides in this process, on one device, connected over
// 127.0.0.1: for CI and single-host checks. Process CPU figures then
// cover both sides.
func Loopback(ctx context.Context, cfg Config) (*report.Result, error) {
	if _, err := cfg.Normalize(); err != nil {
		return nil, err
	}
	ln, err := exchange.Listen("127.0.0.1", 0)
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	base := cfg
	base.CPU = -1
	if cfg.CPU >= 0 {
		base.CPU = cfg.CPU + cfg.Threads
	}
	sv := &Server{Base: base}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srvErr := make(chan error, 1)
	go func() { srvErr <- sv.Serve(ctx, ln, false) }()
	cfg.More = false
	res, err := RunClient(ctx, cfg, "127.0.0.1", ln.Port())
	if err != nil {
		cancel()
	}
	serr := <-srvErr
	if res != nil {
		if res.Extra == nil {
			res.Extra = map[string]string{}
		}
		res.Extra["loopback"] = "true"
	}
	if err == nil && serr != nil && !errors.Is(serr, context.Canceled) && !errors.Is(serr, net.ErrClosed) {
		err = fmt.Errorf("server side: %w", serr)
	}
	return res, err
}
