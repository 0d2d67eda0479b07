package verbs

/*
#include <string.h>
#include "cm_shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"
	"unsafe"
)

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
