package verbs

/*
#include <string.h>
#include <infiniband/verbs.h>

// odp_caps reads the device's on-demand paging capabilities: 0, or the
// errno of ibv_query_device_ex.
static int odp_caps(struct ibv_context *ctx, struct ibv_odp_caps *out) {
	struct ibv_device_attr_ex attr;
	memset(&attr, 0, sizeof attr);
	int ret = ibv_query_device_ex(ctx, NULL, &attr);
	if (ret == 0)
		*out = attr.odp_caps;
	return ret;
}
*/
import "C"

import (
	"errors"
	"strings"
	"syscall"
)

// ODPOps are the operations a transport supports on memory registered
// for on-demand paging (enum ibv_odp_transport_cap_bits).
type ODPOps uint32

// The operations of [ODPOps].
const (
	ODPSend    ODPOps = C.IBV_ODP_SUPPORT_SEND
	ODPRecv    ODPOps = C.IBV_ODP_SUPPORT_RECV
	ODPWrite   ODPOps = C.IBV_ODP_SUPPORT_WRITE
	ODPRead    ODPOps = C.IBV_ODP_SUPPORT_READ
	ODPAtomic  ODPOps = C.IBV_ODP_SUPPORT_ATOMIC
	ODPSRQRecv ODPOps = C.IBV_ODP_SUPPORT_SRQ_RECV
)

var odpOpNames = []struct {
	op   ODPOps
	name string
}{{ODPSend, "send"}, {ODPRecv, "recv"}, {ODPWrite, "write"}, {ODPRead, "read"}, {ODPAtomic, "atomic"}, {ODPSRQRecv, "srq_recv"}}

// String names the operations, "send|recv", or "none".
func (o ODPOps) String() string {
	var names []string
	for _, n := range odpOpNames {
		if o&n.op != 0 {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}

// ODPCaps is a device's on-demand paging support (struct ibv_odp_caps).
type ODPCaps struct {
	// Supported: general_caps has IBV_ODP_SUPPORT.
	Supported bool
	// Implicit: general_caps has IBV_ODP_SUPPORT_IMPLICIT.
	Implicit bool
	// RC, UC and UD are per_transport_caps.
	RC, UC, UD ODPOps
}

// Transport returns the operations supported over transport ("RC", "UC"
// or "UD"); none for another.
func (c ODPCaps) Transport(transport string) ODPOps {
	switch transport {
	case "RC":
		return c.RC
	case "UC":
		return c.UC
	case "UD":
		return c.UD
	}
	return 0
}

// QueryODP returns the device's on-demand paging capabilities. A device
// or provider without ibv_query_device_ex has none. Equivalent to the
// "odp_caps" of `ibv_devinfo -v`.
func (c *Context) QueryODP() (ODPCaps, error) {
	var caps C.struct_ibv_odp_caps
	if ret := C.odp_caps(c.ctx, &caps); ret != 0 {
		if errno := syscall.Errno(ret); errors.Is(errno, syscall.EOPNOTSUPP) || errors.Is(errno, syscall.ENOSYS) {
			return ODPCaps{}, nil
		}
		return ODPCaps{}, verbErr("ibv_query_device_ex", ret, nil)
	}
	return ODPCaps{
		Supported: caps.general_caps&C.IBV_ODP_SUPPORT != 0,
		Implicit:  caps.general_caps&C.IBV_ODP_SUPPORT_IMPLICIT != 0,
		RC:        ODPOps(caps.per_transport_caps.rc_odp_caps),
		UC:        ODPOps(caps.per_transport_caps.uc_odp_caps),
		UD:        ODPOps(caps.per_transport_caps.ud_odp_caps),
	}, nil
}
