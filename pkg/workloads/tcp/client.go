package tcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// paramDataPort is the handshake parameter in which the server announces
// its data connection's port.
const paramDataPort = "data_port"

// reasonWait bounds how long a client whose data connection failed waits
// for the server's explanation on the control connection.
const reasonWait = time.Second

// RunClient runs cfg against the server at host:ctrlPort and returns the
// result, with both sides' CPU usage.
//
// The control connection carries the handshake (a parameter mismatch
// fails on both sides, naming both values), the barrier between warm-up
// and the timed phase, and the server's figures; the data connection,
// to the port the server announces in the handshake, carries the
// measured traffic on a locked OS thread.
//
// When ctx is cancelled during the timed phase, RunClient returns what
// was measured so far (this side only; for tcp_bw, the bytes handed to
// the kernel) together with an error wrapping ctx.Err().
func RunClient(ctx context.Context, cfg Config, host string, ctrlPort int) (*report.Result, error) {
	if err := cfg.Normalize(); err != nil {
		return nil, err
	}
	ctrl, err := exchange.Dial(ctx, host, ctrlPort, cfg.IdleTimeout)
	if err != nil {
		return nil, err
	}
	defer ctrl.Close()
	ctrl.SetTimeout(cfg.IdleTimeout)
	stopCtrl := context.AfterFunc(ctx, func() { _ = ctrl.Close() })
	defer stopCtrl()

	peer, err := ctrl.Handshake(exchange.RoleClient, cfg.HandshakeParams())
	if err != nil {
		return nil, interrupted(ctx, cfg.Workload, err)
	}
	port, err := strconv.Atoi(peer[paramDataPort])
	if err != nil || port < 1 || port > 65535 {
		err = fmt.Errorf("server %s announced no data port (%s=%q): is it serving TCP workloads?", ctrl.RemoteAddr(), paramDataPort, peer[paramDataPort])
		ctrl.SendError(err)
		return nil, err
	}
	s, err := dialData(ctx, ctrl.RemoteAddr(), port, cfg)
	if err != nil {
		ctrl.SendError(err)
		return nil, interrupted(ctx, cfg.Workload, err)
	}
	defer s.close()
	stopData := context.AfterFunc(ctx, s.abort)
	defer stopData()

	c := newClient(cfg, s, ctrl)
	if err := onLockedThread(cfg.CPU, c.measure); err != nil {
		_ = c.endTimed()
		if ctx.Err() != nil {
			return c.partial(), interrupted(ctx, cfg.Workload, err)
		}
		if reason := serverReason(ctrl, err, min(reasonWait, cfg.IdleTimeout)); reason != "" {
			return nil, fmt.Errorf("%s: %w (server: %s)", cfg.Workload, err, reason)
		}
		return nil, fmt.Errorf("%s: %w", cfg.Workload, err)
	}
	sr, err := recvReport(ctrl, cfg.IdleTimeout)
	if err != nil {
		return c.result(nil), interrupted(ctx, cfg.Workload, err)
	}
	return c.result(sr), nil
}

// dialData opens the data connection to port on the control connection's
// peer address.
func dialData(ctx context.Context, ctrlPeer net.Addr, port int, cfg Config) (*sock, error) {
	ta, ok := ctrlPeer.(*net.TCPAddr)
	if !ok {
		return nil, fmt.Errorf("data connection: control peer %s is not a TCP address", ctrlPeer)
	}
	addr := (&net.TCPAddr{IP: ta.IP, Port: port, Zone: ta.Zone}).String()
	d := net.Dialer{Timeout: cfg.IdleTimeout}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("data connection: %w", err)
	}
	return newSock(nc.(*net.TCPConn), cfg.BusyPoll, cfg.IdleTimeout)
}

// interrupted reports err as an interruption when ctx is done: the closed
// connections are then a consequence, not the cause.
func interrupted(ctx context.Context, workload string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s interrupted: %w", workload, context.Cause(ctx))
	}
	return err
}

// serverReason waits briefly for the server's Error message after the
// data connection failed with err, and returns its text, if any.
func serverReason(ctrl *exchange.Conn, err error, wait time.Duration) string {
	var pe *exchange.PeerError
	var op *exchange.OpError
	if errors.As(err, &pe) || errors.As(err, &op) {
		return "" // the control connection itself failed or explained
	}
	if errors.As(ctrl.RecvTimeout(exchange.MsgResult, nil, wait), &pe) {
		return pe.Message
	}
	return ""
}

// recvReport receives and decodes the server's figures.
func recvReport(ctrl *exchange.Conn, wait time.Duration) (*serverReport, error) {
	var msg exchange.Result
	if err := ctrl.RecvTimeout(exchange.MsgResult, &msg, wait); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(msg.Payload))
	dec.DisallowUnknownFields()
	var sr serverReport
	if err := dec.Decode(&sr); err != nil {
		return nil, fmt.Errorf("decoding the server's result: %w", err)
	}
	return &sr, nil
}

// partial returns what was measured before an interruption, or nil if the
// timed phase had not begun.
func (c *client) partial() *report.Result {
	if !c.timed || c.done == 0 {
		return nil
	}
	return c.result(nil)
}

// result builds the report, with the server's figures when sr is not nil.
func (c *client) result(sr *serverReport) *report.Result {
	cfg := c.cfg
	res := &report.Result{
		Params: report.Params{
			Workload: cfg.Workload, Transport: "TCP", Completion: cfg.Completion(),
			SizeBytes: cfg.Size, Iterations: cfg.Iterations, DurationS: cfg.Duration.Seconds(),
			Warmup: cfg.Warmup, QPs: 1, Threads: 1,
		},
		Kind:      report.Bandwidth,
		Ops:       c.done,
		Bytes:     c.done * uint64(cfg.Size),
		ElapsedNS: c.end - c.start,
	}
	if cfg.BusyPoll {
		res.Extra = map[string]string{"so_busy_poll_us": c.s.busyPoll}
	}
	if cfg.Workload == Lat {
		res.Kind = report.Latency
		res.Bytes *= 2 // the echo
		res.SamplesNS = c.samples
		if c.rec != nil {
			c.rec.Fill(res)
		}
	}
	if c.ended {
		local := c.cpu1.Since(c.cpu0)
		res.CPU.Local = &local
	}
	if sr != nil {
		remote := sr.CPU
		res.CPU.Remote = &remote
		res.Server = &report.Result{
			Params: res.Params, Kind: res.Kind,
			Ops: sr.Ops, Bytes: sr.Bytes, ElapsedNS: sr.ElapsedNS,
			CPU: report.CPUPair{Local: &remote},
		}
	}
	return res
}
