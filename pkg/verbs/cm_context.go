package verbs

/*
#include <rdma/rdma_cma.h>
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"
)

// OpenCM returns librdmacm's own context of the device called name (the
// first device when empty), so that protection domains, CQs and memory
// regions created on it can serve queue pairs that rdma_cm creates. The
// context is borrowed: Close leaves it open.
func OpenCM(name string) (*Context, error) {
	var n C.int
	list, err := C.rdma_get_devices(&n)
	if list == nil {
		return nil, verbErr("rdma_get_devices", -1, err)
	}
	defer C.rdma_free_devices(list)
	var names []string
	for _, ctx := range unsafe.Slice(list, int(n)) {
		dn := C.GoString(C.ibv_get_device_name(ctx.device))
		if name == "" || name == dn {
			return cmContext(ctx), nil
		}
		names = append(names, dn)
	}
	if len(names) == 0 {
		return nil, ErrNoDevice
	}
	return nil, fmt.Errorf("%w %q: devices present: %s", ErrNoSuchDevice, name, strings.Join(names, ", "))
}

// cmContext wraps the ibv_context rdma_cm opened for a device. librdmacm
// owns it and keeps it open for the life of the process: this Context has
// no finalizer and must not be closed.
func cmContext(ctx *C.struct_ibv_context) *Context {
	return &Context{ctx: ctx, name: C.GoString(C.ibv_get_device_name(ctx.device)), borrowed: true}
}

// IPv4 returns the address of an IPv4-mapped GID (a RoCE v2 GID), the
// address rdma_cm resolves to the device.
func (g GID) IPv4() (string, bool) {
	if !g.IsIPv4() {
		return "", false
	}
	return fmt.Sprintf("%d.%d.%d.%d", g[12], g[13], g[14], g[15]), true
}
