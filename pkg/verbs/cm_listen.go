package verbs

/*
#include "cm_shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"time"
)

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
func (l *CMListener) Accept(ctx context.Context, timeout time.Duration, setup CMSetup) (*CMConn, error) {
	if l == nil || l.id == nil {
		return nil, errors.New("rdma_cm accept: the listener is closed")
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("rdma_cm accept on %s: timeout %v must be positive", l.addr, timeout)
	}
	deadline := time.Now().Add(timeout)
	var req cmEvent
	for {
		ev, err := cmWait(ctx, l.ch, deadline)
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
	if err := c.connect(setup, true); err != nil {
		return reject(err)
	}
	// rdma_accept moved the QP to RTS.
	if err := c.setMinRNRTimer(); err != nil {
		c.Close()
		return nil, err
	}
	if err := c.await(ctx, C.RDMA_CM_EVENT_ESTABLISHED, deadline, timeout); err != nil {
		c.Close()
		return nil, err
	}
	c.established = true
	return c, nil
}
