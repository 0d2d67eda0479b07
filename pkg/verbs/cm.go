package verbs

/*
#cgo LDFLAGS: -lrdmacm
#include <stdlib.h>
#include <string.h>
#include "cm_shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// This file connects RC and UC queue pairs with the RDMA connection manager
// (librdmacm), the alternative to the manual RESET→INIT→RTR→RTS
// transitions of qp.go, as perftest's -R does. rdma_cm resolves the peer's
// IP address to a device, port, GID and path, chooses the QP attributes
// (PSNs, MTU, path, access), moves the QP to RTS and runs the connection
// handshake. Parameters, buffer addresses and rkeys still travel over
// rdma-bench's own channel.
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

// cmWait returns the next event on ch, waiting no later than deadline.
func cmWait(ch *C.struct_rdma_event_channel, deadline time.Time) (cmEvent, error) {
	for {
		ms := cmMillis(deadline)
		if ms <= 0 {
			return cmEvent{}, errCMTimeout
		}
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

// cmAddr converts ap to the C form.
func cmAddr(ap netip.AddrPort) (C.struct_rb_addr, error) {
	var a C.struct_rb_addr
	ip := ap.Addr()
	a.port = C.uint16_t(ap.Port())
	if ip.Is4() || ip.Is4In6() {
		b := ip.Unmap().As4()
		C.memcpy(unsafe.Pointer(&a.ip[0]), unsafe.Pointer(&b[0]), 4)
		a.is_v4 = 1
		return a, nil
	}
	b := ip.As16()
	C.memcpy(unsafe.Pointer(&a.ip[0]), unsafe.Pointer(&b[0]), 16)
	if z := ip.Zone(); z != "" {
		ifc, err := net.InterfaceByName(z)
		if err != nil {
			return a, fmt.Errorf("address %s: zone: %w", ip, err)
		}
		a.scope_id = C.uint32_t(ifc.Index)
	}
	return a, nil
}

// goAddr converts the C form back.
func goAddr(a C.struct_rb_addr) netip.AddrPort {
	var ip netip.Addr
	if a.is_v4 != 0 {
		ip = netip.AddrFrom4([4]byte(C.GoBytes(unsafe.Pointer(&a.ip[0]), 4)))
	} else {
		ip = netip.AddrFrom16([16]byte(C.GoBytes(unsafe.Pointer(&a.ip[0]), 16)))
		if a.scope_id != 0 {
			if ifc, err := net.InterfaceByIndex(int(a.scope_id)); err == nil {
				ip = ip.WithZone(ifc.Name)
			}
		}
	}
	return netip.AddrPortFrom(ip, uint16(a.port))
}

// cmPort validates a TCP-style port number.
func cmPort(port int) error {
	if port < 0 || port > 65535 {
		return fmt.Errorf("rdma_cm port %d out of range 0-65535", port)
	}
	return nil
}

// cmCreateID creates an id for a typ connection on ch. RC ids are bound to
// bind when it is not nil; UC ids are always bound (rdma_create_ep).
func cmCreateID(ch *C.struct_rdma_event_channel, typ QPType, bind *netip.AddrPort) (*C.struct_rdma_cm_id, error) {
	var id *C.struct_rdma_cm_id
	switch typ {
	case RC:
		if ret, err := C.rdma_create_id(ch, &id, nil, C.RDMA_PS_TCP); ret != 0 {
			return nil, verbErr("rdma_create_id(RDMA_PS_TCP)", ret, err)
		}
		if bind != nil {
			a, err := cmAddr(*bind)
			if err == nil {
				if ret := C.rb_cm_bind(id, &a); ret != 0 {
					err = verbErr(fmt.Sprintf("rdma_bind_addr(%s)", *bind), ret, nil)
				}
			}
			if err != nil {
				C.rdma_destroy_id(id)
				return nil, err
			}
		}
	case UC:
		if bind == nil {
			return nil, errors.New("rdma_cm: a UC id needs a bind address")
		}
		a, err := cmAddr(*bind)
		if err != nil {
			return nil, err
		}
		if ret := C.rb_cm_create_ep_id(ch, C.int(typ), &a, &id); ret != 0 {
			return nil, verbErr(fmt.Sprintf("rdma_create_ep(UC, RDMA_PS_IB, bind %s)", *bind), ret, nil)
		}
	default:
		return nil, fmt.Errorf("rdma_cm connects RC and UC queue pairs, not %s", typ)
	}
	return id, nil
}

// CMListener waits for rdma_cm connection requests on an address and port
// (struct rdma_cm_id in the listening state, with its event channel).
type CMListener struct {
	id   *C.struct_rdma_cm_id
	ch   *C.struct_rdma_event_channel
	typ  QPType
	addr netip.AddrPort
}

// CMListen listens for typ (RC or UC) connections on bindAddr (an IP
// address; "" means every IPv4 address) and port (0 picks a free one: see
// Port). Equivalent to the server side of `ib_write_bw -R`.
func CMListen(bindAddr string, port int, typ QPType) (*CMListener, error) {
	if err := cmPort(port); err != nil {
		return nil, err
	}
	if bindAddr == "" {
		bindAddr = "0.0.0.0"
	}
	ip, err := netip.ParseAddr(bindAddr)
	if err != nil {
		return nil, fmt.Errorf("rdma_cm listen address %q: not an IP address", bindAddr)
	}
	bind := netip.AddrPortFrom(ip, uint16(port))
	ch, err := cmChannel()
	if err != nil {
		return nil, err
	}
	l := &CMListener{ch: ch, typ: typ, addr: bind}
	if l.id, err = cmCreateID(ch, typ, &bind); err != nil {
		l.Close()
		return nil, err
	}
	if ret, err := C.rdma_listen(l.id, cmBacklog); ret != 0 {
		l.Close()
		return nil, verbErr(fmt.Sprintf("rdma_listen(%s)", bind), ret, err)
	}
	l.addr = netip.AddrPortFrom(ip, uint16(C.rb_cm_src_port(l.id)))
	runtime.SetFinalizer(l, (*CMListener).Close)
	return l, nil
}

// Port is the port the listener is bound to.
func (l *CMListener) Port() int { return int(l.addr.Port()) }

// Addr is the address and port the listener is bound to.
func (l *CMListener) Addr() netip.AddrPort { return l.addr }

// Close stops listening; connections already accepted are not affected.
// Not while an Accept runs. Safe on nil and more than once.
func (l *CMListener) Close() error {
	if l == nil || l.ch == nil {
		return nil
	}
	runtime.SetFinalizer(l, nil)
	var first error
	if l.id != nil {
		if ret, err := C.rdma_destroy_id(l.id); ret != 0 {
			first = verbErr("rdma_destroy_id", ret, err)
		}
		l.id = nil
	}
	C.rdma_destroy_event_channel(l.ch)
	l.ch = nil
	return first
}

// Accept waits up to timeout for a connection request, calls setup with the
// Context of the device the request arrived on, creates the queue pair
// (rdma_create_qp) on the returned PD and CQs, accepts (rdma_accept: the QP
// goes to RTS) and waits for RDMA_CM_EVENT_ESTABLISHED, all within timeout.
// When setup fails, the request is rejected. Not safe for concurrent use.
func (l *CMListener) Accept(timeout time.Duration, setup CMSetup) (*CMConn, error) {
	if l == nil || l.id == nil {
		return nil, errors.New("rdma_cm accept: the listener is closed")
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("rdma_cm accept on %s: timeout %v must be positive", l.addr, timeout)
	}
	deadline := time.Now().Add(timeout)
	var req cmEvent
	for {
		ev, err := cmWait(l.ch, deadline)
		if errors.Is(err, errCMTimeout) {
			return nil, fmt.Errorf("rdma_cm accept on %s: no connection request within %v: %w", l.addr, timeout, os.ErrDeadlineExceeded)
		}
		if err != nil {
			return nil, fmt.Errorf("rdma_cm accept on %s: %w", l.addr, err)
		}
		if ev.typ == C.RDMA_CM_EVENT_CONNECT_REQUEST {
			req = ev
			break
		}
		if ev.typ == C.RDMA_CM_EVENT_DEVICE_REMOVAL {
			return nil, cmEventErr(fmt.Sprintf("rdma_cm accept on %s", l.addr), ev)
		}
		// Address changes and the like do not concern a listener.
	}
	c := &CMConn{id: req.id, typ: l.typ}
	c.op = fmt.Sprintf("rdma_cm accept on %s from %s", l.addr, c.RemoteAddr())
	reject := func(err error) (*CMConn, error) {
		C.rdma_reject(c.id, nil, 0)
		c.Close()
		return nil, err
	}
	// The new id reports its events on the listener's channel: give it
	// its own, so that the connection and the listener are independent.
	ch, err := cmChannel()
	if err != nil {
		return reject(fmt.Errorf("%s: %w", c.op, err))
	}
	if ret, err := C.rdma_migrate_id(c.id, ch); ret != 0 {
		C.rdma_destroy_event_channel(ch)
		return reject(fmt.Errorf("%s: %w", c.op, verbErr("rdma_migrate_id", ret, err)))
	}
	c.ch = ch
	if err := c.createQP(setup); err != nil {
		return reject(err)
	}
	if err := c.setAckTimeout(); err != nil {
		return reject(err)
	}
	cfg := c.cfg
	if ret := C.rb_cm_connect(c.id, 1, cmDepth(cfg.ResponderResources), cmDepth(cfg.InitiatorDepth), cmRetry, cmRetry); ret != 0 {
		return reject(fmt.Errorf("%s: %w", c.op, verbErr("rdma_accept", ret, nil)))
	}
	// rdma_accept moved the QP to RTS.
	if err := c.setMinRNRTimer(); err != nil {
		c.Close()
		return nil, err
	}
	if err := c.await(C.RDMA_CM_EVENT_ESTABLISHED, deadline, timeout); err != nil {
		c.Close()
		return nil, err
	}
	c.established = true
	return c, nil
}

// CMConn is a queue pair connected by rdma_cm: its rdma_cm_id, event
// channel and QP. Close it before the PD and CQs the QP uses. It has no
// finalizer: its QP may be in use by code that no longer refers to it.
type CMConn struct {
	id          *C.struct_rdma_cm_id
	ch          *C.struct_rdma_event_channel
	ctx         *Context
	qp          *QP
	typ         QPType
	cfg         CMQPConfig
	established bool
	op          string
}

// CMDial connects a typ (RC or UC) queue pair to the listener at addr (an
// IP address or host name) and port: it resolves the address and route
// (rdma_resolve_addr, rdma_resolve_route), calls setup with the Context of
// the device that reaches the peer, creates the queue pair on the returned
// PD and CQs (rdma_create_qp), connects (rdma_connect) and waits for
// RDMA_CM_EVENT_ESTABLISHED, all within timeout. Equivalent to the client
// side of `ib_write_bw -R`.
func CMDial(addr string, port int, typ QPType, timeout time.Duration, setup CMSetup) (*CMConn, error) {
	if err := cmPort(port); err != nil {
		return nil, err
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("rdma_cm connect %s: timeout %v must be positive", net.JoinHostPort(addr, fmt.Sprint(port)), timeout)
	}
	deadline := time.Now().Add(timeout)
	ip, err := cmLookup(addr, deadline)
	if err != nil {
		return nil, err
	}
	dst := netip.AddrPortFrom(ip, uint16(port))
	c := &CMConn{typ: typ, op: "rdma_cm connect " + dst.String()}
	fail := func(err error) (*CMConn, error) {
		c.Close()
		return nil, err
	}
	if c.ch, err = cmChannel(); err != nil {
		return nil, fmt.Errorf("%s: %w", c.op, err)
	}
	var bind *netip.AddrPort
	if typ == UC {
		wild := netip.IPv4Unspecified()
		if !ip.Unmap().Is4() {
			wild = netip.IPv6Unspecified()
		}
		ap := netip.AddrPortFrom(wild, 0)
		bind = &ap
	}
	if c.id, err = cmCreateID(c.ch, typ, bind); err != nil {
		return fail(fmt.Errorf("%s: %w", c.op, err))
	}
	ca, err := cmAddr(dst)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", c.op, err))
	}
	if ret := C.rb_cm_resolve_addr(c.id, &ca, C.int(max(cmMillis(deadline), 1))); ret != 0 {
		return fail(fmt.Errorf("%s: %w", c.op, verbErr("rdma_resolve_addr", ret, nil)))
	}
	if err := c.await(C.RDMA_CM_EVENT_ADDR_RESOLVED, deadline, timeout); err != nil {
		return fail(err)
	}
	if ret, err := C.rdma_resolve_route(c.id, C.int(max(cmMillis(deadline), 1))); ret != 0 {
		err = verbErr("rdma_resolve_route", ret, err)
		if ip.IsLoopback() {
			err = fmt.Errorf("%w (rdma_cm cannot route over the loopback interface: use the address of the RDMA device's netdev)", err)
		}
		return fail(fmt.Errorf("%s: %w", c.op, err))
	}
	if err := c.await(C.RDMA_CM_EVENT_ROUTE_RESOLVED, deadline, timeout); err != nil {
		return fail(err)
	}
	if err := c.createQP(setup); err != nil {
		return fail(err)
	}
	if err := c.setAckTimeout(); err != nil {
		return fail(err)
	}
	if ret := C.rb_cm_connect(c.id, 0, cmDepth(c.cfg.ResponderResources), cmDepth(c.cfg.InitiatorDepth), cmRetry, cmRetry); ret != 0 {
		return fail(fmt.Errorf("%s: %w", c.op, verbErr("rdma_connect", ret, nil)))
	}
	if err := c.await(C.RDMA_CM_EVENT_ESTABLISHED, deadline, timeout); err != nil {
		return fail(err)
	}
	c.established = true
	if err := c.setMinRNRTimer(); err != nil {
		return fail(err)
	}
	return c, nil
}

// cmLookup parses addr as an IP address or resolves it as a host name,
// preferring IPv4.
func cmLookup(addr string, deadline time.Time) (netip.Addr, error) {
	if ip, err := netip.ParseAddr(addr); err == nil {
		return ip, nil
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", addr)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("rdma_cm connect %s: %w", addr, err)
	}
	for _, ip := range ips {
		if ip.Unmap().Is4() {
			return ip.Unmap(), nil
		}
	}
	if len(ips) == 0 {
		return netip.Addr{}, fmt.Errorf("rdma_cm connect %s: no address", addr)
	}
	return ips[0], nil
}

// cmDepth converts a responder resources or initiator depth setting: 0
// (or 255 and above) asks for the device's maximum.
func cmDepth(v int) C.uint8_t {
	if v <= 0 || v >= C.RDMA_MAX_RESP_RES {
		return C.RDMA_MAX_RESP_RES
	}
	return C.uint8_t(v)
}

// await waits until deadline for event want on the connection's channel;
// any other event (but the harmless ones) ends the wait with an error.
func (c *CMConn) await(want C.enum_rdma_cm_event_type, deadline time.Time, timeout time.Duration) error {
	for {
		ev, err := cmWait(c.ch, deadline)
		if errors.Is(err, errCMTimeout) {
			return fmt.Errorf("%s: no %s within %v: %w", c.op, cmEventName(want), timeout, os.ErrDeadlineExceeded)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", c.op, err)
		}
		switch {
		case ev.typ == want && ev.status == 0:
			return nil
		case ev.typ == C.RDMA_CM_EVENT_ADDR_CHANGE || ev.typ == C.RDMA_CM_EVENT_TIMEWAIT_EXIT:
			continue
		}
		return cmEventErr(c.op, ev)
	}
}

// createQP runs setup on the id's device and creates the QP on what it
// returns.
func (c *CMConn) createQP(setup CMSetup) error {
	if c.id.verbs == nil {
		return fmt.Errorf("%s: rdma_cm bound the connection to no RDMA device", c.op)
	}
	c.ctx = cmContext(c.id.verbs)
	if setup == nil {
		return fmt.Errorf("%s: no setup function", c.op)
	}
	cfg, err := setup(c.ctx)
	if err != nil {
		return fmt.Errorf("%s: setup on %s: %w", c.op, c.ctx.name, err)
	}
	if cfg.PD == nil || cfg.PD.pd == nil || cfg.SendCQ == nil || cfg.SendCQ.cq == nil || cfg.RecvCQ == nil || cfg.RecvCQ.cq == nil {
		return fmt.Errorf("%s: setup returned no protection domain or no completion queues", c.op)
	}
	if cfg.PD.pd.context != c.id.verbs {
		return fmt.Errorf("%s: the protection domain belongs to another device context: create it on the Context passed to setup", c.op)
	}
	sge := cfg.MaxSGE
	if sge <= 0 {
		sge = 1
	}
	caps := C.struct_rb_cm_qp_caps{
		max_send_wr: C.uint32_t(cfg.MaxSendWR),
		max_recv_wr: C.uint32_t(cfg.MaxRecvWR),
		max_sge:     C.uint32_t(sge),
		max_inline:  C.uint32_t(cfg.MaxInline),
	}
	if cfg.SignalAll {
		caps.sig_all = 1
	}
	if ret := C.rb_cm_create_qp(c.id, cfg.PD.pd, cfg.SendCQ.cq, cfg.RecvCQ.cq, &caps); ret != 0 {
		return fmt.Errorf("%s: %w", c.op, verbErr(fmt.Sprintf("rdma_create_qp(%s, send_wr %d, recv_wr %d, inline %d)",
			c.typ, cfg.MaxSendWR, cfg.MaxRecvWR, cfg.MaxInline), ret, nil))
	}
	c.qp = &QP{qp: c.id.qp, typ: c.typ, maxInline: int(caps.max_inline)}
	c.cfg = cfg
	return nil
}

// setAckTimeout gives RC connections perftest's local ACK timeout instead
// of the one rdma_cm derives from the packet lifetime.
func (c *CMConn) setAckTimeout() error {
	if c.typ != RC {
		return nil
	}
	v := C.uint8_t(cmAckTimeout)
	if ret, err := C.rdma_set_option(c.id, C.RDMA_OPTION_ID, C.RDMA_OPTION_ID_ACK_TIMEOUT, unsafe.Pointer(&v), C.size_t(unsafe.Sizeof(v))); ret != 0 {
		return fmt.Errorf("%s: %w", c.op, verbErr("rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT)", ret, err))
	}
	return nil
}

// setMinRNRTimer gives an RTS RC QP cmMinRNRTimer.
func (c *CMConn) setMinRNRTimer() error {
	if c.typ != RC {
		return nil
	}
	if ret, err := C.rb_cm_set_min_rnr_timer(c.qp.qp, cmMinRNRTimer); ret != 0 {
		return fmt.Errorf("%s: %w", c.op, verbErr(fmt.Sprintf("ibv_modify_qp(%s qp %d RTS to RTS, min_rnr_timer %d)", c.typ, c.qp.QPN(), cmMinRNRTimer), ret, err))
	}
	return nil
}

// cmContext wraps the ibv_context rdma_cm opened for a device. librdmacm
// owns it and keeps it open for the life of the process: this Context has
// no finalizer and must not be closed.
func cmContext(ctx *C.struct_ibv_context) *Context {
	return &Context{ctx: ctx, name: C.GoString(C.ibv_get_device_name(ctx.device)), borrowed: true}
}

// QP is the connected queue pair, in RTS. It belongs to the connection:
// Close the connection rather than the QP.
func (c *CMConn) QP() *QP { return c.qp }

// Context is the device context rdma_cm chose for the connection (the one
// setup received). librdmacm owns it: do not close it.
func (c *CMConn) Context() *Context { return c.ctx }

// Port is the device port the connection goes through.
func (c *CMConn) Port() int {
	if c == nil || c.id == nil {
		return 0
	}
	return int(c.id.port_num)
}

// LocalAddr is the connection's local IP address and port.
func (c *CMConn) LocalAddr() netip.AddrPort {
	if c == nil || c.id == nil {
		return netip.AddrPort{}
	}
	var a C.struct_rb_addr
	C.rb_cm_addr(c.id, 0, &a)
	return goAddr(a)
}

// RemoteAddr is the peer's IP address and port.
func (c *CMConn) RemoteAddr() netip.AddrPort {
	if c == nil || c.id == nil {
		return netip.AddrPort{}
	}
	var a C.struct_rb_addr
	C.rb_cm_addr(c.id, 1, &a)
	return goAddr(a)
}

// CMQPAttr is what rdma_cm chose for a connected queue pair.
type CMQPAttr struct {
	State           QPState
	PathMTU         MTU
	DestQPN         uint32
	SQPSN, RQPSN    uint32
	Access          Access // the QP's remote access flags
	GIDIndex        int
	MaxRdAtomic     int // outstanding READs/atomics as initiator (RC)
	MaxDestRdAtomic int // outstanding READs/atomics as responder (RC)
	Timeout         int // local ACK timeout exponent (RC)
	RetryCount      int // (RC)
	RNRRetry        int // (RC)
	MinRNRTimer     int // (RC)
}

// Attr queries the connected QP's attributes (ibv_query_qp).
func (c *CMConn) Attr() (CMQPAttr, error) {
	if c == nil || c.qp == nil || c.qp.qp == nil {
		return CMQPAttr{}, errors.New("querying a closed rdma_cm connection")
	}
	var a C.struct_rb_cm_qp_attr
	if ret := C.rb_cm_query_qp(c.qp.qp, &a); ret != 0 {
		return CMQPAttr{}, verbErr(fmt.Sprintf("ibv_query_qp(%s qp %d)", c.typ, c.qp.QPN()), ret, nil)
	}
	return CMQPAttr{
		State: QPState(a.state), PathMTU: mtuFromEnum(C.enum_ibv_mtu(a.path_mtu)), DestQPN: uint32(a.dest_qp_num),
		SQPSN: uint32(a.sq_psn), RQPSN: uint32(a.rq_psn), Access: Access(a.access), GIDIndex: int(a.sgid_index),
		MaxRdAtomic: int(a.max_rd_atomic), MaxDestRdAtomic: int(a.max_dest_rd_atomic), Timeout: int(a.timeout),
		RetryCount: int(a.retry_cnt), RNRRetry: int(a.rnr_retry), MinRNRTimer: int(a.min_rnr_timer),
	}, nil
}

// Close disconnects (rdma_disconnect), destroys the QP (rdma_destroy_qp),
// the rdma_cm_id and the event channel, in that order, and returns the
// first error. The PD, CQs and memory regions stay the caller's. Safe on
// nil and more than once.
func (c *CMConn) Close() error {
	if c == nil || (c.id == nil && c.ch == nil) {
		return nil
	}
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	if c.id != nil {
		if c.qp != nil && c.qp.qp == nil {
			// The QP was closed directly: rdma_cm must not touch it.
			c.id.qp = nil
		}
		if c.established {
			if ret, err := C.rdma_disconnect(c.id); ret != 0 {
				keep(verbErr("rdma_disconnect", ret, err))
			}
			c.established = false
		}
		if c.qp != nil {
			// rdma_destroy_qp, but reporting ibv_destroy_qp's error.
			if err := c.qp.Close(); err != nil {
				keep(err)
			}
			c.id.qp = nil
		} else if c.id.qp != nil {
			C.rdma_destroy_qp(c.id)
		}
		if ret, err := C.rdma_destroy_id(c.id); ret != 0 {
			keep(verbErr("rdma_destroy_id", ret, err))
		}
		c.id = nil
	}
	if c.ch != nil {
		C.rdma_destroy_event_channel(c.ch)
		c.ch = nil
	}
	return first
}
