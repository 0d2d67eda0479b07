package workloads

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rdma-bench/rdma-bench/pkg/engine"
)

// busyPollUS is the SO_BUSY_POLL budget asked for in busy-poll mode.
const busyPollUS = 50

var (
	// errPeerClosed: the peer closed the data connection.
	errPeerClosed = errors.New("connection closed by peer")
	// errStopped: the socket was aborted (the context was cancelled).
	errStopped = errors.New("stopped")
)

// timeoutError is a wait for the peer that exceeded the idle timeout. It
// matches os.ErrDeadlineExceeded.
type timeoutError struct {
	op string // "recv" or "send"
	d  time.Duration
}

func (e *timeoutError) Error() string {
	if e.op == "send" {
		return fmt.Sprintf("peer stopped reading: send blocked for %v", e.d)
	}
	return fmt.Sprintf("peer went silent: nothing received for %v", e.d)
}

func (e *timeoutError) Is(target error) bool { return target == os.ErrDeadlineExceeded }

// sock is a connected TCP socket taken out of Go's netpoller: a blocking
// file descriptor driven in C by the measuring thread alone, through an
// engine.SockLoop that issues the system calls and takes the timestamps.
// Every blocking call is bounded by the idle timeout (the loop's
// watchdog; no socket timeouts, which would arm a kernel timer at every
// wait). abort, safe from any goroutine, stops the loop and shuts the
// socket down so that a blocked call returns at once; close releases both
// and must be called by the owner once the measuring thread is done.
type sock struct {
	fd   int
	peer string
	busy bool // MSG_DONTWAIT calls spun on, instead of blocking calls
	idle time.Duration
	// busyPoll is the outcome of SO_BUSY_POLL in busy mode: the budget in
	// µs, or why it was refused.
	busyPoll string
	// loop runs every transfer. It is replaced (by prepare) and read only
	// on the measuring thread, and by abort and close under mu.
	loop *engine.SockLoop

	mu      sync.Mutex
	closed  bool
	aborted atomic.Bool
}

// newSock takes nc's socket out of the netpoller: it duplicates the
// descriptor, closes nc, and sets the duplicate blocking with TCP_NODELAY.
// nc is closed in every case.
// The socket can move one-off buffers; prepare readies it for a workload.
func newSock(nc *net.TCPConn, busy bool, idle time.Duration) (*sock, error) {
	peer := nc.RemoteAddr().String()
	defer nc.Close()
	rc, err := nc.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("data connection to %s: %w", peer, err)
	}
	fd := -1
	var dupErr error
	if err := rc.Control(func(f uintptr) { fd, dupErr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, fmt.Errorf("data connection to %s: %w", peer, err)
	}
	if dupErr != nil {
		return nil, fmt.Errorf("data connection to %s: dup: %w", peer, dupErr)
	}
	s := &sock{fd: fd, peer: peer, busy: busy, idle: idle}
	if err := s.setOptions(); err != nil {
		s.close()
		return nil, fmt.Errorf("data connection to %s: %w", peer, err)
	}
	if err := s.prepare(1, 1); err != nil {
		s.close()
		return nil, fmt.Errorf("data connection to %s: %w", peer, err)
	}
	return s, nil
}

func (s *sock) setOptions() error {
	if err := unix.SetNonblock(s.fd, false); err != nil {
		return fmt.Errorf("setting blocking mode: %w", err)
	}
	if err := unix.SetsockoptInt(s.fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
		return fmt.Errorf("setting TCP_NODELAY: %w", err)
	}
	if s.busy {
		// Best effort: raising it needs CAP_NET_ADMIN, and it only helps
		// on a NIC with NAPI (not on loopback).
		s.busyPoll = fmt.Sprint(busyPollUS)
		if err := unix.SetsockoptInt(s.fd, unix.SOL_SOCKET, unix.SO_BUSY_POLL, busyPollUS); err != nil {
			s.busyPoll = "refused: " + err.Error()
		}
	}
	return nil
}

// prepare gives the socket a loop for size-byte messages that records up
// to samples ping-pong timestamps per call. Call it on the measuring
// thread, before the loop runs.
func (s *sock) prepare(size, samples int) error {
	l, err := engine.NewSockLoop(engine.SockSpec{FD: s.fd, Size: size, Busy: s.busy, IdleTimeout: s.idle, SampleCap: samples})
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		l.Close()
		return errStopped
	}
	if s.aborted.Load() {
		l.Stop()
	}
	s.loop.Close()
	s.loop = l
	return nil
}

// abort makes every pending and later call on s fail with errStopped.
func (s *sock) abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.aborted.Store(true)
		s.loop.Stop()
		_ = unix.Shutdown(s.fd, unix.SHUT_RDWR)
	}
}

// close releases the descriptor and the loop; it is idempotent.
func (s *sock) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.loop.Close() // first: its watchdog may shut the descriptor down
		_ = unix.Close(s.fd)
	}
}

// closeWrite sends FIN: the end of the stream, at a message boundary.
func (s *sock) closeWrite() error {
	if err := unix.Shutdown(s.fd, unix.SHUT_WR); err != nil {
		return s.fail(err)
	}
	return nil
}

// sendAll writes all of p (outside the measured loops).
func (s *sock) sendAll(p []byte) error {
	return s.outcome(s.loop.SendAll(p))
}

// recvFull fills p. It returns io.EOF if the stream ended before the first
// byte, errPeerClosed if it ended inside p.
func (s *sock) recvFull(p []byte) error {
	return s.outcome(s.loop.RecvFull(p))
}

// outcome maps what a loop call returned to this package's errors: nil
// when it is done, full or past its deadline; io.EOF when the peer ended
// the stream at a message boundary and errPeerClosed inside a message;
// errStopped once aborted; a *timeoutError; or the system error.
func (s *sock) outcome(st engine.Status, err error) error {
	// A type assertion, not errors.As: nothing escapes, so the hot path
	// does not allocate.
	if se, ok := err.(*engine.SockError); ok {
		if se.Errno != 0 {
			return s.fail(se.Errno)
		}
		if s.aborted.Load() {
			return errStopped
		}
		return &timeoutError{op: se.Op, d: s.idle}
	}
	switch {
	case err != nil:
		return err
	case st == engine.StatusStopped:
		return errStopped
	case st == engine.StatusEOF && s.aborted.Load():
		return errStopped
	case st == engine.StatusEOF && s.loop.Partial() > 0:
		return errPeerClosed
	case st == engine.StatusEOF:
		return io.EOF
	}
	return nil
}

// opErr describes a failed loop call by the system call that failed: its
// error wrapped in send or recv. io.EOF, the peer ending the stream at a
// message boundary, comes back unwrapped.
func (s *sock) opErr(st engine.Status, err error, send, recv string) error {
	e := s.outcome(st, err)
	if e == io.EOF {
		return e
	}
	switch failedOp(st, err) {
	case "send":
		return fmt.Errorf("%s: %w", send, e)
	case "recv":
		return fmt.Errorf("%s: %w", recv, e)
	}
	return e
}

// failedOp is the call a loop's failure came from: "send", "recv", or ""
// when it was stopped between calls.
func failedOp(st engine.Status, err error) string {
	if se, ok := err.(*engine.SockError); ok {
		return se.Op
	}
	if st == engine.StatusEOF {
		return "recv"
	}
	return ""
}

// fail maps a system error, reporting an aborted socket as errStopped.
func (s *sock) fail(err error) error {
	if s.aborted.Load() {
		return errStopped
	}
	if errors.Is(err, unix.EPIPE) || errors.Is(err, unix.ECONNRESET) {
		return fmt.Errorf("%w (%v)", errPeerClosed, err)
	}
	return err
}
