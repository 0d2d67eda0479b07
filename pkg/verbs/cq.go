package verbs

/*
#include "shim.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// CQ is a completion queue (struct ibv_cq), optionally with a completion
// channel for event-driven completions.
type CQ struct {
	cq      *C.struct_ibv_cq
	channel *C.struct_ibv_comp_channel
	unacked uint32
}

// NewCQ creates a completion queue of at least entries entries. With
// withChannel, it gets its own completion channel for event-driven waits.
func (c *Context) NewCQ(entries int, withChannel bool) (*CQ, error) {
	q := &CQ{}
	if withChannel {
		ch, err := C.ibv_create_comp_channel(c.ctx)
		if ch == nil {
			return nil, verbErr("ibv_create_comp_channel", -1, err)
		}
		q.channel = ch
	}
	cq, err := C.ibv_create_cq(c.ctx, C.int(entries), nil, q.channel, 0)
	if cq == nil {
		if q.channel != nil {
			C.ibv_destroy_comp_channel(q.channel)
		}
		return nil, verbErr("ibv_create_cq", -1, err)
	}
	q.cq = cq
	runtime.SetFinalizer(q, (*CQ).Close)
	return q, nil
}

// HasChannel reports whether the CQ has a completion channel.
func (q *CQ) HasChannel() bool { return q.channel != nil }

// Close acknowledges outstanding events and destroys the CQ and its
// channel. Safe on nil and more than once.
func (q *CQ) Close() error {
	if q == nil || q.cq == nil {
		return nil
	}
	runtime.SetFinalizer(q, nil)
	if q.unacked > 0 {
		C.ibv_ack_cq_events(q.cq, C.uint(q.unacked))
		q.unacked = 0
	}
	var first error
	if ret, err := C.ibv_destroy_cq(q.cq); ret != 0 {
		first = verbErr("ibv_destroy_cq", ret, err)
	}
	q.cq = nil
	if q.channel != nil {
		if ret, err := C.ibv_destroy_comp_channel(q.channel); ret != 0 && first == nil {
			first = verbErr("ibv_destroy_comp_channel", ret, err)
		}
		q.channel = nil
	}
	return first
}

// WC is one work completion.
type WC struct {
	WRID    uint64
	Status  WCStatus
	Opcode  WCOpcode
	ByteLen uint32
	Imm     uint32
	HasImm  bool
	SrcQP   uint32
	QPNum   uint32
	Vendor  uint32
}

// Err returns a *WCError for a failed completion, else nil.
func (w WC) Err() error {
	if w.Status == WCSuccess {
		return nil
	}
	return &WCError{Status: w.Status, Opcode: w.Opcode, WRID: w.WRID, VendorErr: w.Vendor}
}

// Poll returns up to max completions without blocking.
func (q *CQ) Poll(max int) ([]WC, error) {
	if max <= 0 {
		return nil, nil
	}
	raw := make([]C.struct_rb_wc, max)
	n, err := C.rb_poll_cq(q.cq, C.int(max), &raw[0])
	if n < 0 {
		return nil, verbErr("ibv_poll_cq", n, err)
	}
	out := make([]WC, int(n))
	for i := range out {
		r := raw[i]
		out[i] = WC{
			WRID: uint64(r.wr_id), Status: WCStatus(r.status), Opcode: WCOpcode(r.opcode),
			ByteLen: uint32(r.byte_len), Imm: uint32(r.imm_data), HasImm: r.wc_flags&C.IBV_WC_WITH_IMM != 0,
			SrcQP: uint32(r.src_qp), QPNum: uint32(r.qp_num), Vendor: uint32(r.vendor_err),
		}
	}
	return out, nil
}

// ArmNotify requests an event for the next completion (ibv_req_notify_cq).
func (q *CQ) ArmNotify() error {
	if ret, err := C.rb_req_notify_cq(q.cq, 0); ret != 0 {
		return verbErr("ibv_req_notify_cq", ret, err)
	}
	return nil
}

// WaitEvent blocks up to timeout for a completion event on the CQ's
// channel and re-arms it. Events are acknowledged in batches.
func (q *CQ) WaitEvent(timeout time.Duration) error {
	if q.channel == nil {
		return errors.New("waiting for a completion event: the cq has no completion channel")
	}
	var got *C.struct_ibv_cq
	ret := C.rb_wait_cq_event(q.channel, C.int(timeout.Milliseconds()), &got)
	if syscall.Errno(ret) == syscall.ETIMEDOUT {
		return ErrTimeout
	}
	if ret != 0 {
		return verbErr("ibv_get_cq_event", ret, nil)
	}
	q.unacked++
	if q.unacked >= 64 {
		C.ibv_ack_cq_events(q.cq, C.uint(q.unacked))
		q.unacked = 0
	}
	return q.ArmNotify()
}

// WaitOne returns the next completion, busy-polling or (with a channel)
// waiting on events, failing with ErrTimeout after timeout. For set-up and
// tests: the measured data path polls in C.
func (q *CQ) WaitOne(timeout time.Duration) (WC, error) {
	deadline := time.Now().Add(timeout)
	if q.channel != nil {
		if err := q.ArmNotify(); err != nil {
			return WC{}, err
		}
	}
	for {
		wcs, err := q.Poll(1)
		if err != nil {
			return WC{}, err
		}
		if len(wcs) == 1 {
			return wcs[0], wcs[0].Err()
		}
		left := time.Until(deadline)
		if left <= 0 {
			return WC{}, ErrTimeout
		}
		if q.channel != nil {
			if err := q.WaitEvent(left); err != nil {
				return WC{}, err
			}
		}
	}
}

// Raw returns the struct ibv_cq for the measured loops of pkg/engine;
// valid until Close.
func (q *CQ) Raw() unsafe.Pointer { return unsafe.Pointer(q.cq) }

// RawChannel returns the CQ's struct ibv_comp_channel (nil without one)
// for the measured loops of pkg/engine; valid until Close.
func (q *CQ) RawChannel() unsafe.Pointer { return unsafe.Pointer(q.channel) }
