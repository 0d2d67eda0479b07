package tcp

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// busyPollUS is the SO_BUSY_POLL budget asked for in busy-poll mode.
const busyPollUS = 50

// spinCheck is how many EAGAINs a busy-polling call spins between looks
// at the clock for the idle timeout.
const spinCheck = 1024

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
// file descriptor driven with plain system calls by the measuring thread
// alone. Every blocking call is bounded by SO_RCVTIMEO/SO_SNDTIMEO (the
// idle timeout). abort, safe from any goroutine, shuts the socket down so
// that a blocked call returns at once; close releases it and must be
// called by the owner once the measuring thread is done.
type sock struct {
	fd   int
	peer string
	busy bool // MSG_DONTWAIT calls spun on, instead of blocking calls
	idle time.Duration
	// busyPoll is the outcome of SO_BUSY_POLL in busy mode: the budget in
	// µs, or why it was refused.
	busyPoll string

	mu      sync.Mutex
	closed  bool
	aborted atomic.Bool
}

// newSock takes nc's socket out of the netpoller: it duplicates the
// descriptor, closes nc, and sets the duplicate blocking with TCP_NODELAY
// and the idle timeout on both directions. nc is closed in every case.
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
	return s, nil
}

func (s *sock) setOptions() error {
	if err := unix.SetNonblock(s.fd, false); err != nil {
		return fmt.Errorf("setting blocking mode: %w", err)
	}
	if err := unix.SetsockoptInt(s.fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
		return fmt.Errorf("setting TCP_NODELAY: %w", err)
	}
	tv := unix.NsecToTimeval(s.idle.Nanoseconds())
	if err := unix.SetsockoptTimeval(s.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return fmt.Errorf("setting SO_RCVTIMEO: %w", err)
	}
	if err := unix.SetsockoptTimeval(s.fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv); err != nil {
		return fmt.Errorf("setting SO_SNDTIMEO: %w", err)
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

// abort makes every pending and later call on s fail with errStopped.
func (s *sock) abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.aborted.Store(true)
		_ = unix.Shutdown(s.fd, unix.SHUT_RDWR)
	}
}

// close releases the descriptor; it is idempotent.
func (s *sock) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
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

// sendAll writes all of p, retrying short writes and EINTR.
func (s *sock) sendAll(p []byte) error {
	flags := uintptr(unix.MSG_NOSIGNAL)
	if s.busy {
		flags |= unix.MSG_DONTWAIT
	}
	var since int64
	spins := 0
	for len(p) > 0 {
		var r uintptr
		var e unix.Errno
		if s.busy {
			r, _, e = unix.RawSyscall6(unix.SYS_SENDTO, uintptr(s.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), flags, 0, 0)
		} else {
			r, _, e = unix.Syscall6(unix.SYS_SENDTO, uintptr(s.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), flags, 0, 0)
		}
		if e == 0 {
			p = p[r:]
			since, spins = 0, 0
			continue
		}
		if err := s.retry(e, "send", &since, &spins); err != nil {
			return err
		}
	}
	return nil
}

// recvSome reads at least one byte into p; at the end of the stream it
// returns io.EOF.
func (s *sock) recvSome(p []byte) (int, error) {
	flags := uintptr(0)
	if s.busy {
		flags = unix.MSG_DONTWAIT
	}
	var since int64
	spins := 0
	for {
		var r uintptr
		var e unix.Errno
		if s.busy {
			r, _, e = unix.RawSyscall6(unix.SYS_RECVFROM, uintptr(s.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), flags, 0, 0)
		} else {
			r, _, e = unix.Syscall6(unix.SYS_RECVFROM, uintptr(s.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), flags, 0, 0)
		}
		switch {
		case e == 0 && r > 0:
			return int(r), nil
		case e == 0:
			if s.aborted.Load() {
				return 0, errStopped
			}
			return 0, io.EOF
		}
		if err := s.retry(e, "recv", &since, &spins); err != nil {
			return 0, err
		}
	}
}

// recvFull fills p. It returns io.EOF if the stream ended before the first
// byte, errPeerClosed if it ended inside p.
func (s *sock) recvFull(p []byte) error {
	for got := 0; got < len(p); {
		n, err := s.recvSome(p[got:])
		if err == io.EOF && got > 0 {
			return errPeerClosed
		}
		if err != nil {
			return err
		}
		got += n
	}
	return nil
}

// retry decides what a failed call does next: nil to call again (EINTR,
// or EAGAIN while busy-polling within the idle timeout), else the error.
// *since is when the wait began (0: not yet measured).
func (s *sock) retry(e unix.Errno, op string, since *int64, spins *int) error {
	switch {
	case e == unix.EINTR:
		// Blocking calls with a timeout are not restarted after a signal
		// (Go preempts with SIGURG); bound the total wait ourselves.
		if s.stalled(since) {
			return &timeoutError{op: op, d: s.idle}
		}
		return nil
	case e == unix.EAGAIN && s.busy:
		if *spins++; *spins%spinCheck == 0 && s.stalled(since) {
			return &timeoutError{op: op, d: s.idle}
		}
		return nil
	case e == unix.EAGAIN:
		if s.aborted.Load() {
			return errStopped
		}
		return &timeoutError{op: op, d: s.idle}
	}
	return s.fail(e)
}

// stalled reports whether the wait that began at *since has outlasted the
// idle timeout; a zero *since starts the wait now.
func (s *sock) stalled(since *int64) bool {
	t := now()
	if *since == 0 {
		*since = t
		return false
	}
	return t-*since > int64(s.idle)
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
