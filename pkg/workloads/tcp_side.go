package workloads

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/rdma-bench/rdma-bench/pkg/engine"
	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// latChunk is how many latency samples one socket loop call records
// before Go takes them.
const latChunk = 4096

// tcpSide is the TCP baseline's side: one data connection driven by a
// socket loop in C. tcp_lat is a ping-pong of Size-byte messages, half
// the round trip per sample, as ib_send_lat and sockperf ping-pong; the
// client ends it by shutting down its sending side. tcp_bw is a one-way
// stream: the client sends, shuts down its sending side, and waits for
// the server's 8-byte count of what it received, so that its timed span
// ends when the last byte has arrived (like an RDMA completion), not when
// it was handed to the kernel.
type tcpSide struct {
	s  *session
	ln *net.TCPListener // the server's data listener, until connected

	mu sync.Mutex // guards sk against close, for abort
	sk *sock
}

func openTCP(s *session) (side, error) {
	t := &tcpSide{s: s}
	if s.role == server {
		ln, err := listenData(s.conn.LocalAddr(), s.local.DataPort)
		if err != nil {
			return nil, err
		}
		t.ln = ln
	}
	return t, nil
}

func (t *tcpSide) endpoints() exchange.Endpoints {
	if t.ln == nil {
		return exchange.Endpoints{}
	}
	return exchange.Endpoints{DataPort: t.ln.Addr().(*net.TCPAddr).Port}
}

// connect makes the data connection and readies its loop.
func (t *tcpSide) connect(ctx context.Context, peer exchange.Endpoints) error {
	busy, idle := !t.s.spec.Events, t.s.local.IdleTimeout
	var sk *sock
	var err error
	if t.s.role == client {
		if peer.DataPort == 0 {
			return fmt.Errorf("server %s announced no data port for %s", t.s.conn.RemoteAddr(), t.s.w.Name)
		}
		sk, err = dialData(ctx, t.s.conn.RemoteAddr(), peer.DataPort, busy, idle)
	} else {
		sk, err = acceptData(ctx, t.ln, t.s.conn.RemoteAddr(), busy, idle)
		_ = t.ln.Close()
		t.ln = nil
	}
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.sk = sk
	t.mu.Unlock()
	if err := sk.prepare(t.s.spec.Size, latChunk); err != nil {
		return fmt.Errorf("preparing the data connection: %w", err)
	}
	msg := sk.loop.Message()
	for i := range msg {
		msg[i] = byte(i)
	}
	return nil
}

func (t *tcpSide) workers() int { return 1 }

func (t *tcpSide) posted() uint64 { return 0 }

// tcpPing is the socket loop as a latency loop, its failures named by the
// call that failed.
type tcpPing struct {
	*engine.SockLoop
	sk *sock
}

func (p tcpPing) Ping(n uint64, deadlineNS int64, record bool) (engine.Status, error) {
	st, err := p.SockLoop.Ping(n, deadlineNS, record)
	e := p.sk.opErr(st, err, "sending", "receiving the reply")
	switch {
	case e == nil:
		return st, nil
	case errors.Is(e, errStopped):
		return engine.StatusStopped, nil
	case e == io.EOF:
		e = fmt.Errorf("receiving the reply: %w", errPeerClosed)
	}
	return st, e
}

func (t *tcpSide) pinger(int) pingLoop { return tcpPing{t.sk.loop, t.sk} }

// send runs tcp_bw's client: warm-up, the timed stream, the end of the
// stream and the server's count of what arrived.
func (t *tcpSide) send(_ int, r *workerResult, tk *ticker) error {
	c, l := t.s.spec, t.sk.loop
	if st, err := l.SendStream(uint64(c.Warmup), 0); st != engine.StatusDone {
		return t.fail(fmt.Sprintf("warm-up message %d", l.Done()+1), t.sk.outcome(st, err))
	}
	l.ResetCounts()
	l.ArmWindow(0)
	n, deadline := uint64(c.Iterations), int64(0)
	if c.Duration > 0 {
		n, deadline = engine.Forever, engine.Now()+c.Duration.Nanoseconds()
	}
	defer func() { r.ops = l.Done() }()
	tk.start(l)
	st, err := l.SendStream(n, deadline)
	for st == engine.StatusFull { // a tick
		tk.bandwidth(l, c.Size)
		left := n
		if n != engine.Forever {
			left = n - l.Done()
		}
		st, err = l.SendStream(left, deadline)
	}
	r.cpu0, r.cpu1, r.window = l.Window()
	r.firstNS = r.cpu0.WallNS
	if st != engine.StatusDone && st != engine.StatusDeadline {
		return t.fail(fmt.Sprintf("message %d: sending", l.Done()+1), t.sk.outcome(st, err))
	}
	if err := t.sk.closeWrite(); err != nil {
		return t.fail("ending the stream", err)
	}
	var ack [8]byte
	if err := t.sk.recvFull(ack[:]); err != nil {
		if err == io.EOF {
			err = errPeerClosed
		}
		return t.fail("waiting for the server to receive the last byte", err)
	}
	// The timed part, and its CPU window, end when the last byte has
	// arrived.
	r.cpu1 = engine.SampleCPU()
	r.lastNS = r.cpu1.WallNS
	if got, sent := binary.BigEndian.Uint64(ack[:]), l.Done()*uint64(c.Size); got != sent {
		return fmt.Errorf("the server received %d bytes of the %d sent", got, sent)
	}
	return nil
}

// afterActive ends tcp_lat's stream: the server's echo loop then ends.
func (t *tcpSide) afterActive(int, *workerResult) error {
	if !t.s.plan.ping {
		return nil
	}
	if err := t.sk.closeWrite(); err != nil {
		return t.fail("ending the stream", err)
	}
	return nil
}

// fail describes what failed; a loop stopped by an abort was interrupted.
func (t *tcpSide) fail(what string, err error) error {
	if errors.Is(err, errStopped) {
		return errInterrupted
	}
	return fmt.Errorf("%s: %w", what, err)
}

// pong echoes every message until the client ends the stream.
func (t *tcpSide) pong(int) (engine.Status, error) {
	l := t.sk.loop
	st, err := l.Pong(engine.Forever)
	if e := t.sk.opErr(st, err, "replying", "receiving"); e != io.EOF {
		return st, t.fail(fmt.Sprintf("iteration %d", l.Done()+1), e)
	}
	if c := t.s.spec; c.Duration == 0 && l.Done() != uint64(c.Warmup+c.Iterations) {
		return st, fmt.Errorf("client stopped after %d of %d iterations", l.Done(), c.Warmup+c.Iterations)
	}
	return engine.StatusDone, nil
}

// recv sinks tcp_bw's warm-up, then everything until the client ends the
// stream, and acknowledges the byte count.
func (t *tcpSide) recv(_ int, r *workerResult) (engine.Status, error) {
	c, l := t.s.spec, t.sk.loop
	size := uint64(c.Size)
	warm := uint64(c.Warmup) * size
	if st, err := l.RecvStream(warm); st != engine.StatusDone {
		e := t.sk.outcome(st, err)
		if e == io.EOF {
			e = errPeerClosed
		}
		return st, t.fail(fmt.Sprintf("warm-up, byte %d of %d", l.Bytes(), warm), e)
	}
	l.ResetCounts()
	st, err := l.RecvStream(engine.Forever)
	bytes := l.Bytes()
	if e := t.sk.outcome(st, err); e != io.EOF {
		return st, t.fail(fmt.Sprintf("after %d bytes: receiving", bytes), e)
	}
	r.firstNS, r.lastNS = l.Arrivals()
	r.received = bytes / size
	var ack [8]byte
	binary.BigEndian.PutUint64(ack[:], bytes)
	if err := t.sk.sendAll(ack[:]); err != nil {
		return st, t.fail(fmt.Sprintf("acknowledging %d bytes", bytes), err)
	}
	if n := uint64(c.Iterations); c.Duration == 0 && bytes != n*size {
		return st, fmt.Errorf("received %d bytes, expected %d (%d messages of %d bytes)", bytes, n*size, n, size)
	}
	return engine.StatusDone, nil
}

// liveOps is the messages sent so far; the ticker reads it on the loop's
// own thread.
func (t *tcpSide) liveOps() uint64 { return t.sk.loop.Done() }

// endPassive has nothing to do: the passive loops end with the stream.
func (t *tcpSide) endPassive() {}

func (t *tcpSide) abort() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sk != nil {
		t.sk.abort()
	}
}

func (t *tcpSide) validate([]workerResult) string { return "" }

func (t *tcpSide) params(p *report.Params) {
	if t.sk != nil && t.sk.busy {
		p.Extra = map[string]string{"so_busy_poll_us": t.sk.busyPoll}
	}
}

func (t *tcpSide) deviceInfo() *report.Device { return nil }

func (t *tcpSide) close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sk != nil {
		t.sk.close()
		t.sk = nil
	}
	if t.ln != nil {
		_ = t.ln.Close()
		t.ln = nil
	}
	return nil
}
