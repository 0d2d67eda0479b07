package engine

/*
#include <stdlib.h>
#include "rdma.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// Verb is the operation a measured RDMA loop performs.
type Verb int

// Engine operations.
const (
	Write    Verb = C.RB_WRITE
	WriteImm Verb = C.RB_WRITE_IMM
	Read     Verb = C.RB_READ
	Send     Verb = C.RB_SEND
	FetchAdd Verb = C.RB_FADD
	CompSwap Verb = C.RB_CSWAP
)

// wcOpcode names a failed completion's operation: the opcode field of a
// failed completion is undefined, so the posted operation stands in.
func (v Verb) wcOpcode() verbs.WCOpcode {
	return [...]verbs.WCOpcode{verbs.WCRDMAWrite, verbs.WCRDMAWrite, verbs.WCRDMARead, verbs.WCSend,
		verbs.WCFetchAdd, verbs.WCCompSwap}[v]
}

// Forever, as a count, makes a loop open-ended (see Engine.Stream).
const Forever = ^uint64(0)

// ErrPeerIdle is returned when a loop saw no progress for the engine's
// idle timeout: the peer stopped answering.
var ErrPeerIdle = errors.New("no progress: the peer stopped answering")

// QP is one queue pair the engine drives, with the memory it uses.
type QP struct {
	QP *verbs.QP
	// Local is the source (write, send) or sink (read, atomics) of
	// operations, at LocalOffset.
	Local       *verbs.MR
	LocalOffset int
	// RemoteAddr and RKey are the peer's memory (RDMA and atomics).
	RemoteAddr uint64
	RKey       uint32
	// Recv is where receives and the peer's ping-pong writes land.
	Recv       *verbs.MR
	RecvOffset int
	RecvLen    int
	// AH and RemoteQPN address a UD peer.
	AH        *verbs.AH
	RemoteQPN uint32
}

// Spec configures an Engine.
type Spec struct {
	Verb       Verb
	Size       int
	TxDepth    int
	RxDepth    int
	CQMod      int       // signal one send WR in CQMod
	PostList   int       // WRs per ibv_post_send call
	InlineSize int       // post inline when Size <= InlineSize
	CQ         *verbs.CQ // shared by every QP of the engine, sends and receives
	Events     bool
	QPs        []QP
	CompareAdd uint64
	Swap       uint64
	// IdleTimeout bounds how long a loop waits without progress.
	IdleTimeout time.Duration
	// SampleCap is how many samples one call may record before
	// returning StatusFull.
	SampleCap int
	// Slots is how many ping-pong operations an open loop keeps in flight,
	// each in its own slot of every region, Stride bytes apart (0 or 1: a
	// closed loop, one slot).
	Slots  int
	Stride int
	// Rate, in operations per second, schedules an open loop (PingOpen)
	// or limits a stream; 0 for none.
	Rate uint64
	// SRQ, if set, is the receive queue of every QP: RxDepth receives in
	// all, each into the region of a QP in turn.
	SRQ *verbs.SRQ
}

// Engine runs measured loops over a set of QPs sharing one CQ. Its state
// lives in C memory; one Engine is driven by one OS thread at a time, and
// only Stop and StopRecv may be called from elsewhere, at any time, even
// after Close.
type Engine struct {
	mu   sync.Mutex // guards e against Close for Stop and StopRecv
	e    *C.struct_rb_engine
	spec Spec
}

// New checks spec and prepares the work requests of every QP.
func New(spec Spec) (*Engine, error) {
	switch {
	case len(spec.QPs) == 0:
		return nil, errors.New("creating engine: no queue pairs")
	case spec.CQ == nil:
		return nil, errors.New("creating engine: no completion queue")
	case spec.Size <= 0 || spec.TxDepth <= 0 || spec.CQMod <= 0 || spec.CQMod > spec.TxDepth:
		return nil, fmt.Errorf("creating engine: size %d, tx depth %d, cq moderation %d: need size > 0 and 0 < cq-mod <= tx-depth",
			spec.Size, spec.TxDepth, spec.CQMod)
	case spec.PostList <= 0 || spec.PostList > spec.TxDepth:
		return nil, fmt.Errorf("creating engine: post list %d must be in 1..tx depth %d", spec.PostList, spec.TxDepth)
	case spec.Events && !spec.CQ.HasChannel():
		return nil, errors.New("creating engine: event mode needs a cq with a completion channel")
	}
	if spec.SampleCap <= 0 {
		spec.SampleCap = 1 << 16
	}
	e := (*C.struct_rb_engine)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_rb_engine{}))))
	eng := &Engine{e: e, spec: spec}
	e.wake_fd = -1
	e.verb = C.int(spec.Verb)
	if spec.Events {
		e.events = 1
		e.channel = (*C.struct_ibv_comp_channel)(spec.CQ.RawChannel())
		if errno := C.rb_engine_wake_open(e); errno != 0 {
			eng.Close()
			return nil, fmt.Errorf("creating engine: eventfd: %w", syscall.Errno(errno))
		}
	}
	e.size = C.uint32_t(spec.Size)
	e.tx_depth = C.uint32_t(spec.TxDepth)
	e.rx_depth = C.uint32_t(spec.RxDepth)
	e.cq_mod = C.uint32_t(spec.CQMod)
	e.post_list = C.uint32_t(spec.PostList)
	e.inline_size = C.uint32_t(spec.InlineSize)
	e.compare_add = C.uint64_t(spec.CompareAdd)
	e.swap = C.uint64_t(spec.Swap)
	e.idle_timeout_ns = C.int64_t(spec.IdleTimeout.Nanoseconds())
	e.cq = (*C.struct_ibv_cq)(spec.CQ.Raw())
	if spec.SRQ != nil {
		e.srq = (*C.struct_ibv_srq)(spec.SRQ.Raw())
	}
	e.slots, e.stride, e.rate = C.uint32_t(max(spec.Slots, 1)), C.uint32_t(spec.Stride), C.uint64_t(spec.Rate)
	e.nqps = C.int(len(spec.QPs))
	e.qps = (*C.struct_rb_eqp)(C.calloc(C.size_t(len(spec.QPs)), C.size_t(unsafe.Sizeof(C.struct_rb_eqp{}))))
	e.cap = C.uint64_t(spec.SampleCap)
	// ts holds a ping's timestamps, or an open loop's (post, completion)
	// pairs: two per sample.
	e.ts = (*C.int64_t)(C.calloc(C.size_t(2*spec.SampleCap+2), 8))
	e.counts = (*C.uint64_t)(C.calloc(C.size_t(spec.SampleCap+1), 8))
	e.ol_post = (*C.int64_t)(C.calloc(C.size_t(max(spec.Slots, 1)), 8))
	if e.qps == nil || e.ts == nil || e.counts == nil || e.ol_post == nil {
		eng.Close()
		return nil, errors.New("creating engine: out of memory")
	}
	prefault(unsafe.Pointer(e.ts), (2*spec.SampleCap+2)*8)
	prefault(unsafe.Pointer(e.counts), (spec.SampleCap+1)*8)
	qps := unsafe.Slice(e.qps, len(spec.QPs))
	for i, q := range spec.QPs {
		if q.QP == nil || q.Local == nil {
			eng.Close()
			return nil, fmt.Errorf("creating engine: qp %d has no queue pair or local memory", i)
		}
		c := &qps[i]
		c.qp = (*C.struct_ibv_qp)(q.QP.Raw())
		if q.QP.Extended() {
			c.qpx = C.ibv_qp_to_qp_ex(c.qp)
		}
		c.laddr = C.uint64_t(q.Local.Addr() + uint64(q.LocalOffset))
		c.lkey = C.uint32_t(q.Local.LKey())
		c.raddr = C.uint64_t(q.RemoteAddr)
		c.rkey = C.uint32_t(q.RKey)
		if q.Recv != nil {
			c.recv_addr = C.uint64_t(q.Recv.Addr() + uint64(q.RecvOffset))
			c.recv_len = C.uint32_t(q.RecvLen)
			c.recv_lkey = C.uint32_t(q.Recv.LKey())
		}
		if q.AH != nil {
			c.ah = (*C.struct_ibv_ah)(q.AH.Raw())
		}
		c.remote_qpn = C.uint32_t(q.RemoteQPN)
	}
	if ret := C.rb_engine_prepare(e); ret != 0 {
		eng.Close()
		return nil, fmt.Errorf("creating engine: %w", syscall.Errno(ret))
	}
	return eng, nil
}

// Close frees the engine's memory and acknowledges its events; the QPs,
// CQ and MRs belong to the caller. Safe on nil and more than once; not
// while a loop call runs.
func (g *Engine) Close() error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.e == nil {
		return nil
	}
	C.rb_engine_free(g.e)
	C.free(unsafe.Pointer(g.e.qps))
	C.free(unsafe.Pointer(g.e.ts))
	C.free(unsafe.Pointer(g.e.counts))
	C.free(unsafe.Pointer(g.e.ol_post))
	C.free(unsafe.Pointer(g.e))
	g.e = nil
	return nil
}

// Stop makes the running call, and every later one, return StatusStopped;
// safe from any goroutine, on nil and after Close.
func (g *Engine) Stop() { g.signal(func(e *C.struct_rb_engine) { C.rb_engine_stop(e) }) }

// StopRecv tells an open-ended receive-only Stream that the peer has sent
// its last message; safe from any goroutine, on nil and after Close.
func (g *Engine) StopRecv() { g.signal(func(e *C.struct_rb_engine) { C.rb_engine_stop_recv(e) }) }

func (g *Engine) signal(f func(*C.struct_rb_engine)) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.e != nil {
		f(g.e)
	}
}

// ArmWindow arms the timed part's CPU window: a Ping window opens when at
// more iterations are done, a Stream window at the next call's first post;
// it closes when a call returns for good. See Window.
func (g *Engine) ArmWindow(at uint64) { C.rb_engine_arm_window(g.e, C.uint64_t(at)) }

// Window returns the CPU readings that bound the timed part, when both
// were taken.
func (g *Engine) Window() (start, end CPUMark, ok bool) { return window(&g.e.win) }

// PostReceives fills every QP's receive queue to the receive depth. Call
// it before the peer may send.
func (g *Engine) PostReceives() error { return g.result(C.rb_engine_post_recvs(g.e)) }

func (g *Engine) result(ret C.int) error {
	switch ret {
	case C.RB_OK, C.RB_FULL, C.RB_DEADLINE, C.RB_STOPPED:
		return nil
	case C.RB_IDLE:
		return fmt.Errorf("%w for %v", ErrPeerIdle, g.spec.IdleTimeout)
	case C.RB_WC_ERROR:
		return &verbs.WCError{Status: verbs.WCStatus(g.e.wc_status), Opcode: g.spec.Verb.wcOpcode(),
			WRID: uint64(g.e.wc_wr_id), VendorErr: uint32(g.e.wc_vendor_err)}
	}
	return &verbs.VerbError{Verb: C.GoString(g.e.err_verb), Errno: syscall.Errno(g.e.err_errno)}
}

// Ping runs up to n timed ping-pong (or, for READ and atomics,
// round-trip) iterations, until deadlineNS (a Now value; 0 for none), or
// until the sample buffer is full. With record, the post time of each
// iteration is kept, plus one final timestamp after the last: Samples
// returns them. Warm-up runs with record false.
func (g *Engine) Ping(n uint64, deadlineNS int64, record bool) (Status, error) {
	ret := C.rb_ping(g.e, C.uint64_t(n), C.int64_t(deadlineNS), cBool(record))
	return Status(ret), g.result(ret)
}

// StartOpen starts an open loop's schedule now: PingOpen's operation i is
// due i * 10^9 / rate ns later.
func (g *Engine) StartOpen() { C.rb_engine_start_open(g.e) }

// PingOpen runs an open loop (spec.Rate, spec.Slots): up to n operations
// (Forever: until deadlineNS), each posted when due, up to Slots in
// flight; with record, each completed operation's post and completion
// times are kept (OpenSamples). StatusFull: take the samples, call again.
func (g *Engine) PingOpen(n uint64, deadlineNS int64, record bool) (Status, error) {
	ret := C.rb_ping_open(g.e, C.uint64_t(n), C.int64_t(deadlineNS), cBool(record))
	return Status(ret), g.result(ret)
}

// OpenSamples returns the open loop's recorded (post, completion) pairs,
// two values each, and the index of the first one's operation in the
// schedule. The slice aliases C memory; ResetSamples starts a new batch.
func (g *Engine) OpenSamples() (pairs []int64, first uint64) {
	n := int(g.e.len)
	return unsafe.Slice((*int64)(unsafe.Pointer(g.e.ts)), 2*n), uint64(g.e.ol_done) - uint64(n)
}

// Issued is how many operations the open loop has posted since StartOpen.
func (g *Engine) Issued() uint64 { return uint64(g.e.ol_posted) }

// DueBy is how many of the open loop's operations were due at or before
// t (Now's clock): those are the ones a schedule kept would have issued.
func (g *Engine) DueBy(t int64) uint64 {
	if t < int64(g.e.t0) {
		return 0
	}
	hi, lo := bits.Mul64(uint64(t-int64(g.e.t0)), uint64(g.e.rate))
	q, _ := bits.Div64(hi, lo, 1e9) // hi < 1e9: a run is under 2^64 ns and the rate at most 1e9
	return q + 1
}

// Due is when the open loop's operation i was due, on Now's clock.
func (g *Engine) Due(i uint64) int64 {
	hi, lo := bits.Mul64(i, 1e9)
	q, _ := bits.Div64(hi, lo, uint64(g.e.rate)) // hi < rate while the schedule fits 2^64 ns
	return int64(g.e.t0) + int64(q)
}

// Pong answers n pings (Forever: until Stop).
func (g *Engine) Pong(n uint64) (Status, error) {
	ret := C.rb_pong(g.e, C.uint64_t(n))
	return Status(ret), g.result(ret)
}

// Stream posts nSend operations on every QP (Forever: until deadlineNS)
// and takes nRecv receives on every QP (Forever: until the send side is
// done, or for a receive-only call until StopRecv). With record, it keeps
// (time, completed operations) at each signalled completion.
func (g *Engine) Stream(nSend, nRecv uint64, deadlineNS int64, record bool) (Status, error) {
	ret := C.rb_stream(g.e, C.uint64_t(nSend), C.uint64_t(nRecv), C.int64_t(deadlineNS), cBool(record))
	return Status(ret), g.result(ret)
}

// Timestamps returns Ping's recorded timestamps (ns): one per iteration
// plus one after the last. The slice aliases C memory: use it before the
// next call; ResetSamples starts a new batch.
func (g *Engine) Timestamps() []int64 {
	return unsafe.Slice((*int64)(unsafe.Pointer(g.e.ts)), int(g.e.len)+1)
}

// Samples returns the recorded timestamps (ns) and, for Stream, the
// completed-operation counts. The slices alias C memory: copy what you
// keep before the next call; ResetSamples starts a new batch.
func (g *Engine) Samples() (ts []int64, counts []uint64) {
	n := int(g.e.len)
	ts = unsafe.Slice((*int64)(unsafe.Pointer(g.e.ts)), n+1)
	counts = unsafe.Slice((*uint64)(unsafe.Pointer(g.e.counts)), n)
	return ts, counts
}

// SetYield makes Ping and Stream return StatusFull once Now passes ns
// (0: never), so the caller can report progress; the operations in flight
// are not drained.
func (g *Engine) SetYield(ns int64) { g.e.yield_ns = C.int64_t(ns) }

// ResetSamples empties the sample buffer.
func (g *Engine) ResetSamples() { g.e.len = 0 }

// FirstPostNS and LastCompletionNS bound the run in Now's clock.
func (g *Engine) FirstPostNS() int64 { return int64(g.e.first_post_ns) }

// LastCompletionNS is the time of the last completion seen.
func (g *Engine) LastCompletionNS() int64 { return int64(g.e.last_comp_ns) }

// Completed is the number of send operations seen to complete, all QPs.
func (g *Engine) Completed() uint64 {
	var n uint64
	for _, q := range unsafe.Slice(g.e.qps, int(g.e.nqps)) {
		n += uint64(q.completed)
	}
	return n
}

// PostedTotal is the number of send operations posted on every QP of the
// engine, warm-up included.
func (g *Engine) PostedTotal() uint64 {
	var n uint64
	for _, q := range unsafe.Slice(g.e.qps, int(g.e.nqps)) {
		n += uint64(q.posted)
	}
	return n
}

// Posted is the number of send operations posted on QP i of the engine.
func (g *Engine) Posted(i int) uint64 {
	return uint64(unsafe.Slice(g.e.qps, int(g.e.nqps))[i].posted)
}

// ResetTiming forgets the first post time, so that the next call's first
// post starts the timed span (after a warm-up).
func (g *Engine) ResetTiming() {
	g.e.first_post_ns = 0
	C.rb_engine_reset_live(g.e)
}

// LiveOps is the number of send operations completed since ResetTiming,
// as last published by the loop; any goroutine may read it during a run.
func (g *Engine) LiveOps() uint64 { return uint64(C.rb_engine_live_ops(g.e)) }

// Received is the number of receive completions, all QPs.
func (g *Engine) Received() uint64 { return uint64(g.e.recvd) }

// cBool is b as C's int.
func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
