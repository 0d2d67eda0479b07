package verbs

/*
#cgo LDFLAGS: -lrdmacm
#include "cm_shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"math"
	"syscall"
	"time"
)

// This file and the other cm_*.go files connect RC and UC queue pairs with
// the RDMA connection manager (librdmacm), the alternative to the manual
// RESET→INIT→RTR→RTS transitions of qp.go, as perftest's -R does. rdma_cm
// resolves the peer's IP address to a device, port, GID and path, chooses
// the QP attributes (PSNs, MTU, path, access), moves the QP to RTS and runs
// the connection handshake. Parameters, buffer addresses and rkeys still
// travel over rdma-bench's own channel.
//
// RC connections use the RDMA_PS_TCP port space (what perftest, rping and
// most rdma_cm applications use); UC connections use RDMA_PS_IB. Both ends
// must use the same transport: the port spaces are separate.

// CMQPConfig is what a connection's setup callback returns: the caller's
// protection domain and completion queues, created on the Context the
// callback was given, and the size of the queue pair to create.
type CMQPConfig struct {
	PD             *PD
	SendCQ, RecvCQ *CQ
	MaxSendWR      int
	MaxRecvWR      int
	MaxSGE         int // per send and receive WR; 0 means 1
	MaxInline      int
	// SignalAll makes every send WR generate a completion.
	SignalAll bool
	// ResponderResources bounds the RDMA READs and atomics this side
	// serves at once (max_dest_rd_atomic), InitiatorDepth those it issues
	// (max_rd_atomic). 0 means as many as the device allows, which the
	// passive side lowers to what the active side offers. RC only. rdma_cm
	// grants the QP remote READ and atomic access only when responder
	// resources are non-zero; remote WRITE is always granted (memory
	// regions still limit what the peer may touch).
	ResponderResources int
	InitiatorDepth     int
	// SRQ, if set, is the QP's receive queue (created on the same PD).
	SRQ *SRQ
}

// CMSetup is called once the connection manager knows which device the
// connection goes through, with that device's Context (the one rdma_cm
// opened: see CMConn.Context). It creates the PD, CQs and memory regions
// the connection needs on ctx and returns them.
type CMSetup func(ctx *Context) (CMQPConfig, error)

// cmAckTimeout is the RC local ACK timeout (4.096 µs × 2^14 ≈ 67 ms): the
// same as ReadyToSend uses, as perftest.
const cmAckTimeout = 14

// cmRetry is the RC transport retry count and RNR retry count, as perftest
// (an RNR retry count of 7 means retry forever).
const cmRetry = 7

// cmMinRNRTimer is the RC RNR NAK timer (12: 0.64 ms) as in cPath, as
// perftest; the CM would leave 0 (655 ms), which stalls SEND benchmarks
// whenever a receive queue runs dry.
const cmMinRNRTimer = 12

// cmBacklog is the listen backlog.
const cmBacklog = 16

// CMEventError is an rdma_cm event that ended a connection attempt: a
// rejection, an unreachable peer, or an address or route resolution error.
type CMEventError struct {
	Op    string // "rdma_cm connect 10.0.0.2:18516"
	Event string // "RDMA_CM_EVENT_REJECTED"
	// Status is the event's status: a negative errno, or for
	// RDMA_CM_EVENT_REJECTED on InfiniBand and RoCE the CM reject reason.
	Status int
	// Reason explains the event: "rejected (no listener?)".
	Reason string
}

func (e *CMEventError) Error() string {
	detail := fmt.Sprintf("status %d", e.Status)
	switch {
	case e.Event == "RDMA_CM_EVENT_REJECTED" && e.Status > 0:
		detail = fmt.Sprintf("reject reason %d", e.Status)
		if s, ok := cmRejectReasons[e.Status]; ok {
			detail += " (" + s + ")"
		}
	case e.Status < 0:
		detail = fmt.Sprintf("status %d (%v)", e.Status, syscall.Errno(-e.Status))
	}
	return fmt.Sprintf("%s: %s: %s, %s", e.Op, e.Reason, e.Event, detail)
}

// Unwrap lets errors.Is match a negative status's errno.
func (e *CMEventError) Unwrap() error {
	if e.Status < 0 {
		return syscall.Errno(-e.Status)
	}
	return nil
}

// Rejected reports whether the peer (or its connection manager, when
// nothing listens on the port) rejected the connection.
func (e *CMEventError) Rejected() bool { return e.Event == "RDMA_CM_EVENT_REJECTED" }

// cmRejectReasons names the InfiniBand CM reject reasons (enum
// ib_cm_rej_reason) a benchmark can meet.
var cmRejectReasons = map[int]string{
	1:  "no qp",
	3:  "no resources",
	4:  "timeout",
	5:  "unsupported request",
	8:  "invalid service id",
	9:  "invalid transport type",
	10: "stale connection",
	28: "consumer defined",
	29: "invalid rnr retry",
}

// cmEvent is an acknowledged rdma_cm event.
type cmEvent struct {
	typ      C.enum_rdma_cm_event_type
	status   int
	id       *C.struct_rdma_cm_id
	listenID *C.struct_rdma_cm_id
}

func (e cmEvent) name() string { return cmEventName(e.typ) }

func cmEventName(t C.enum_rdma_cm_event_type) string {
	return C.GoString(C.rdma_event_str(t))
}

// errCMTimeout is returned by cmWait when the deadline passes.
var errCMTimeout = errors.New("deadline passed")

// cmSlice is the longest single wait for an event, so that a cancelled
// context ends a wait promptly.
const cmSlice = 100 * time.Millisecond

// cmWait returns the next event on ch, waiting no later than deadline or
// until ctx is done (its error, wrapped).
func cmWait(ctx context.Context, ch *C.struct_rdma_event_channel, deadline time.Time) (cmEvent, error) {
	for {
		if err := ctx.Err(); err != nil {
			return cmEvent{}, fmt.Errorf("waiting for an rdma_cm event: %w", context.Cause(ctx))
		}
		ms := cmMillis(deadline)
		if ms <= 0 {
			return cmEvent{}, errCMTimeout
		}
		ms = min(ms, int(cmSlice/time.Millisecond))
		var ev C.struct_rb_cm_event
		ret := C.rb_cm_get_event(ch, C.int(ms), &ev)
		if syscall.Errno(ret) == syscall.ETIMEDOUT {
			continue
		}
		if ret != 0 {
			return cmEvent{}, verbErr("rdma_get_cm_event", ret, nil)
		}
		return cmEvent{typ: C.enum_rdma_cm_event_type(ev.event), status: int(ev.status), id: ev.id, listenID: ev.listen_id}, nil
	}
}

// cmMillis is the time left until deadline in whole milliseconds, rounded
// up, or 0 when it has passed.
func cmMillis(deadline time.Time) int {
	left := time.Until(deadline)
	if left <= 0 {
		return 0
	}
	ms := (left + time.Millisecond - 1) / time.Millisecond
	if ms > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(ms)
}

// cmEventErr explains an event that is not the one awaited.
func cmEventErr(op string, ev cmEvent) error {
	e := &CMEventError{Op: op, Event: ev.name(), Status: ev.status}
	switch ev.typ {
	case C.RDMA_CM_EVENT_REJECTED:
		switch ev.status {
		case 8: // IB_CM_REJ_INVALID_SERVICE_ID: nothing listens there
			e.Reason = "rejected (no listener?)"
		case 28: // IB_CM_REJ_CONSUMER_DEFINED: rdma_reject
			e.Reason = "rejected by the peer"
		case 9:
			e.Reason = "rejected (the listener uses another transport?)"
		default:
			e.Reason = "rejected"
		}
	case C.RDMA_CM_EVENT_UNREACHABLE:
		e.Reason = "peer unreachable (no reply to the connection request)"
	case C.RDMA_CM_EVENT_ADDR_ERROR:
		e.Reason = "address resolution failed"
		if ev.status == -int(syscall.ENODEV) || ev.status == -int(syscall.EADDRNOTAVAIL) {
			e.Reason += " (no RDMA device has an address on the route to the peer?)"
		}
	case C.RDMA_CM_EVENT_ROUTE_ERROR:
		e.Reason = "route resolution failed"
	case C.RDMA_CM_EVENT_CONNECT_ERROR:
		e.Reason = "connection error"
	case C.RDMA_CM_EVENT_DISCONNECTED:
		e.Reason = "disconnected before the connection was established"
	case C.RDMA_CM_EVENT_DEVICE_REMOVAL:
		e.Reason = "the RDMA device was removed"
	default:
		e.Reason = "unexpected event"
	}
	return e
}

// cmChannel creates a non-blocking event channel; its failure usually
// means the rdma_ucm module is not loaded.
func cmChannel() (*C.struct_rdma_event_channel, error) {
	ch, err := C.rb_cm_create_channel()
	if ch == nil {
		ve := verbErr("rdma_create_event_channel", -1, err)
		var errno syscall.Errno
		if errors.As(ve, &errno) && (errno == syscall.ENOENT || errno == syscall.ENODEV) {
			return nil, fmt.Errorf("%w: is the rdma_ucm kernel module loaded (/dev/infiniband/rdma_cm)?", ve)
		}
		return nil, ve
	}
	return ch, nil
}
