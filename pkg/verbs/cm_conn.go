package verbs

/*
#include "cm_shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"time"
)

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
func CMDial(ctx context.Context, addr string, port int, typ QPType, timeout time.Duration, setup CMSetup) (*CMConn, error) {
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
	if err := c.await(ctx, C.RDMA_CM_EVENT_ADDR_RESOLVED, deadline, timeout); err != nil {
		return fail(err)
	}
	if ret, err := C.rdma_resolve_route(c.id, C.int(max(cmMillis(deadline), 1))); ret != 0 {
		err = verbErr("rdma_resolve_route", ret, err)
		if ip.IsLoopback() {
			err = fmt.Errorf("%w (rdma_cm cannot route over the loopback interface: use the address of the RDMA device's netdev)", err)
		}
		return fail(fmt.Errorf("%s: %w", c.op, err))
	}
	if err := c.await(ctx, C.RDMA_CM_EVENT_ROUTE_RESOLVED, deadline, timeout); err != nil {
		return fail(err)
	}
	if err := c.connect(setup, false); err != nil {
		return fail(err)
	}
	if err := c.await(ctx, C.RDMA_CM_EVENT_ESTABLISHED, deadline, timeout); err != nil {
		return fail(err)
	}
	c.established = true
	if err := c.setMinRNRTimer(); err != nil {
		return fail(err)
	}
	return c, nil
}

// connect creates the QP (createQP, setAckTimeout) and sends the connection
// request (rdma_connect) or, when accept, the reply to one (rdma_accept: the
// QP goes to RTS), with the same parameters on both sides.
func (c *CMConn) connect(setup CMSetup, accept bool) error {
	if err := c.createQP(setup); err != nil {
		return err
	}
	if err := c.setAckTimeout(); err != nil {
		return err
	}
	op, acc := "rdma_connect", C.int(0)
	if accept {
		op, acc = "rdma_accept", 1
	}
	if ret := C.rb_cm_connect(c.id, acc, cmDepth(c.cfg.ResponderResources), cmDepth(c.cfg.InitiatorDepth), cmRetry, cmRetry); ret != 0 {
		return fmt.Errorf("%s: %w", c.op, verbErr(op, ret, nil))
	}
	return nil
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
func (c *CMConn) await(ctx context.Context, want C.enum_rdma_cm_event_type, deadline time.Time, timeout time.Duration) error {
	for {
		ev, err := cmWait(ctx, c.ch, deadline)
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
func (c *CMConn) LocalAddr() netip.AddrPort { return c.addr(0) }

// RemoteAddr is the peer's IP address and port.
func (c *CMConn) RemoteAddr() netip.AddrPort { return c.addr(1) }

// addr is the id's local (peer 0) or remote (peer 1) address and port.
func (c *CMConn) addr(peer C.int) netip.AddrPort {
	if c == nil || c.id == nil {
		return netip.AddrPort{}
	}
	var a C.struct_rb_addr
	C.rb_cm_addr(c.id, peer, &a)
	return goAddr(a)
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
