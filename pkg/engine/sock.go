package engine

/*
#include <stdlib.h>
#include "sock.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// defaultSockSamples is SockSpec.SampleCap's default.
const defaultSockSamples = 4096

// SockSpec configures a SockLoop.
type SockSpec struct {
	// FD is a connected stream socket in blocking mode, without
	// SO_RCVTIMEO or SO_SNDTIMEO (the loop's watchdog bounds blocking
	// calls). The caller owns it: it shuts it down to wake a blocked call
	// after Stop, and closes it after Close.
	FD int
	// Size is the message size in bytes.
	Size int
	// Busy spins on non-blocking (MSG_DONTWAIT) calls instead of
	// blocking.
	Busy bool
	// IdleTimeout bounds a wait for the peer (0: unbounded): in busy
	// mode, the spinning call checks the clock; in blocking mode, a
	// watchdog goroutine that finds a call without progress for that long
	// shuts the socket down (within IdleTimeout/8, at most 100 ms, more).
	IdleTimeout time.Duration
	// SampleCap is how many iterations one Ping call may record before
	// returning StatusFull (default 4096).
	SampleCap int
}

// SockError is a socket call of a loop that failed, or, when Idle is set,
// that waited longer than the idle timeout for the peer.
type SockError struct {
	Op    string        // "send" or "recv"
	Errno syscall.Errno // the call's error; 0 for a timeout
	Idle  time.Duration // the idle timeout that passed; 0 for a failure
}

func (e *SockError) Error() string {
	if e.Errno == 0 {
		return fmt.Sprintf("%s: nothing moved for %v", e.Op, e.Idle)
	}
	return fmt.Sprintf("%s: %v", e.Op, e.Errno)
}

// Unwrap lets errors.Is match the errno, or os.ErrDeadlineExceeded for a
// timeout.
func (e *SockError) Unwrap() error {
	if e.Errno == 0 {
		return os.ErrDeadlineExceeded
	}
	return e.Errno
}

// SockLoop runs the TCP baseline's measured loops on one socket in C: one
// cgo call per run or per batch of samples, with its message buffers and
// sample buffer in C memory. One OS thread drives it at a time; only Stop
// may be called from elsewhere.
type SockLoop struct {
	mu   sync.Mutex // guards s against Close for Stop
	s    *C.struct_rb_sock
	spec SockSpec
	// The watchdog (blocking mode): closing unwatch stops it; watched is
	// closed when it has stopped.
	unwatch, watched chan struct{}
}

// NewSockLoop allocates a loop's buffers for spec.
func NewSockLoop(spec SockSpec) (*SockLoop, error) {
	if spec.FD < 0 || spec.Size <= 0 {
		return nil, fmt.Errorf("creating socket loop: descriptor %d, size %d: need a descriptor and size > 0", spec.FD, spec.Size)
	}
	if spec.SampleCap <= 0 {
		spec.SampleCap = defaultSockSamples
	}
	s := (*C.struct_rb_sock)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_rb_sock{}))))
	if s == nil {
		return nil, errors.New("creating socket loop: out of memory")
	}
	l := &SockLoop{s: s, spec: spec}
	s.fd = C.int(spec.FD)
	if spec.Busy {
		s.busy = 1
	}
	s.size = C.uint32_t(spec.Size)
	s.idle_timeout_ns = C.int64_t(spec.IdleTimeout.Nanoseconds())
	s.buf = (*C.uint8_t)(C.calloc(C.size_t(spec.Size), 1))
	s.reply = (*C.uint8_t)(C.calloc(C.size_t(spec.Size), 1))
	s.cap = C.uint64_t(spec.SampleCap)
	s.ts = (*C.int64_t)(C.calloc(C.size_t(spec.SampleCap+1), 8))
	if s.buf == nil || s.reply == nil || s.ts == nil {
		l.Close()
		return nil, errors.New("creating socket loop: out of memory")
	}
	prefault(unsafe.Pointer(s.ts), (spec.SampleCap+1)*8)
	prefault(unsafe.Pointer(s.buf), spec.Size)
	prefault(unsafe.Pointer(s.reply), spec.Size)
	if !spec.Busy && spec.IdleTimeout > 0 {
		l.unwatch, l.watched = make(chan struct{}), make(chan struct{})
		go l.watch()
	}
	return l, nil
}

// watch is the blocking mode's watchdog: when a call has made no progress
// (no data moved) for the idle timeout, it marks the call timed out and
// shuts the socket down, which wakes it; the call returns StatusIdle. It
// replaces socket timeouts, which arm a kernel timer at every wait.
func (l *SockLoop) watch() {
	defer close(l.watched)
	idle := l.spec.IdleTimeout
	tick := time.NewTicker(min(max(idle/8, time.Millisecond), 100*time.Millisecond))
	defer tick.Stop()
	var last C.uint64_t
	var since time.Time
	for {
		select {
		case <-l.unwatch:
			return
		case now := <-tick.C:
			var inCall C.int
			p := C.rb_sock_watch(l.s, &inCall)
			if inCall == 0 || p != last || since.IsZero() {
				last, since = p, now
				continue
			}
			if now.Sub(since) >= idle {
				C.rb_sock_time_out(l.s)
				_ = syscall.Shutdown(l.spec.FD, syscall.SHUT_RDWR)
				return
			}
		}
	}
}

// Close stops the watchdog and frees the loop's memory; the socket is the
// caller's, to close afterwards. Safe on nil and more than once, but not
// while a call runs.
func (l *SockLoop) Close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s == nil {
		return
	}
	if l.unwatch != nil {
		close(l.unwatch)
		<-l.watched
		l.unwatch = nil
	}
	C.free(unsafe.Pointer(l.s.buf))
	C.free(unsafe.Pointer(l.s.reply))
	C.free(unsafe.Pointer(l.s.ts))
	C.free(unsafe.Pointer(l.s))
	l.s = nil
}

// Stop makes the running call and every later one return StatusStopped:
// at once when spinning, when woken otherwise (shut the socket down).
// Safe from any goroutine, on nil and after Close.
func (l *SockLoop) Stop() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s != nil {
		C.rb_sock_stop(l.s)
	}
}

// ArmWindow arms the timed part's CPU window: it opens when at more
// messages are done (Ping iterations or SendStream messages) and closes
// when a call returns for good. See Window.
func (l *SockLoop) ArmWindow(at uint64) { C.rb_sock_arm_window(l.s, C.uint64_t(at)) }

// Window returns the CPU readings that bound the timed part, when both
// were taken.
func (l *SockLoop) Window() (start, end CPUMark, ok bool) { return window(&l.s.win) }

// Message is the Size-byte message that Ping and SendStream send (C
// memory, valid until Close).
func (l *SockLoop) Message() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(l.s.buf)), l.spec.Size)
}

func (l *SockLoop) result(ret C.int) (Status, error) {
	op := "send"
	if l.s.err_op == C.RB_SOCK_RECV {
		op = "recv"
	}
	switch ret {
	case C.RB_IDLE:
		return StatusIdle, &SockError{Op: op, Idle: l.spec.IdleTimeout}
	case C.RB_SYS_ERROR:
		return StatusFailed, &SockError{Op: op, Errno: syscall.Errno(l.s.err_errno)}
	}
	return Status(ret), nil
}

// Ping runs up to n ping-pong iterations (send Size bytes, receive the
// Size-byte echo), until deadlineNS (a Now value; 0 for none), or until
// the sample buffer is full (with record) or the time set by SetYield
// passes (StatusFull: take Samples, ResetSamples and call again). With
// record, each iteration's time before its send is kept, plus one after
// the last echo: Samples. After a failure, the last sample ends the last
// complete iteration. Warm-up runs with record false.
func (l *SockLoop) Ping(n uint64, deadlineNS int64, record bool) (Status, error) {
	return l.result(C.rb_sock_ping(l.s, C.uint64_t(n), C.int64_t(deadlineNS), cBool(record)))
}

// Pong echoes n messages (Forever: until the peer ends the stream,
// StatusEOF).
func (l *SockLoop) Pong(n uint64) (Status, error) {
	return l.result(C.rb_sock_pong(l.s, C.uint64_t(n)))
}

// SendStream sends n messages (Forever: until deadlineNS), or returns
// StatusFull when the time set by SetYield passes first: call again for
// the rest (Done counts them all).
func (l *SockLoop) SendStream(n uint64, deadlineNS int64) (Status, error) {
	return l.result(C.rb_sock_send_stream(l.s, C.uint64_t(n), C.int64_t(deadlineNS)))
}

// RecvStream receives, Size bytes per call at most, until Bytes reaches
// limit (Forever: until the peer ends the stream, StatusEOF), noting the
// first and last arrival (Arrivals).
func (l *SockLoop) RecvStream(limit uint64) (Status, error) {
	return l.result(C.rb_sock_recv_stream(l.s, C.uint64_t(limit)))
}

// SendAll sends all of p, outside the measured loops.
func (l *SockLoop) SendAll(p []byte) (Status, error) {
	if len(p) == 0 {
		return StatusDone, nil
	}
	return l.result(C.rb_sock_send_all(l.s, (*C.uint8_t)(unsafe.Pointer(&p[0])), C.size_t(len(p))))
}

// RecvFull fills p; at the end of the stream it returns StatusEOF, and
// Partial says how much of p had arrived.
func (l *SockLoop) RecvFull(p []byte) (Status, error) {
	if len(p) == 0 {
		return StatusDone, nil
	}
	return l.result(C.rb_sock_recv_full(l.s, (*C.uint8_t)(unsafe.Pointer(&p[0])), C.size_t(len(p))))
}

// RecvSome receives at least one byte into p.
func (l *SockLoop) RecvSome(p []byte) (int, Status, error) {
	if len(p) == 0 {
		return 0, StatusDone, nil
	}
	var got C.size_t
	st, err := l.result(C.rb_sock_recv_some(l.s, (*C.uint8_t)(unsafe.Pointer(&p[0])), C.size_t(len(p)), &got))
	return int(got), st, err
}

// Timestamps returns the timestamps Ping recorded since ResetSamples: one
// more than the iterations. The slice aliases C memory: use it before the
// next call.
func (l *SockLoop) Timestamps() []int64 {
	return unsafe.Slice((*int64)(unsafe.Pointer(l.s.ts)), int(l.s.len)+1)
}

// ResetSamples empties the sample buffer.
func (l *SockLoop) ResetSamples() { l.s.len = 0 }

// SetYield makes Ping and SendStream return StatusFull once Now passes ns
// (0: never), so that the caller can report live figures.
func (l *SockLoop) SetYield(ns int64) { l.s.yield_ns = C.int64_t(ns) }

// Done is the messages handled since ResetCounts: ping-pong iterations,
// echoes, or stream messages sent.
func (l *SockLoop) Done() uint64 { return uint64(l.s.done) }

// Bytes is what RecvStream received since ResetCounts.
func (l *SockLoop) Bytes() uint64 { return uint64(l.s.bytes) }

// Arrivals are the times (Now) of RecvStream's first and last receive
// since ResetCounts; 0 when none.
func (l *SockLoop) Arrivals() (first, last int64) {
	return int64(l.s.first_ns), int64(l.s.last_ns)
}

// Partial is how much of the last message had arrived when a call
// returned StatusEOF.
func (l *SockLoop) Partial() int { return int(l.s.partial) }

// ResetCounts zeroes Done, Bytes and Arrivals (after a warm-up).
func (l *SockLoop) ResetCounts() {
	l.s.done, l.s.bytes, l.s.first_ns, l.s.last_ns = 0, 0, 0, 0
}
