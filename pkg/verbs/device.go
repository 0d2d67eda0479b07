package verbs

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"runtime"
	"sort"
	"strings"
	"unsafe"
)

// DeviceNames lists the RDMA devices libibverbs sees, in its order.
// Equivalent to: `ibv_devices`.
func DeviceNames() ([]string, error) {
	list, n, err := deviceList()
	if err != nil || n == 0 {
		return nil, err
	}
	defer C.ibv_free_device_list(list)
	devs := unsafe.Slice(list, n)
	names := make([]string, 0, len(devs))
	for _, d := range devs {
		names = append(names, C.GoString(C.ibv_get_device_name(d)))
	}
	return names, nil
}

// deviceList wraps ibv_get_device_list. A host whose kernel has no RDMA
// at all (no /sys/class/infiniband) has zero devices, not an error. The
// list must be freed when n > 0.
func deviceList() (**C.struct_ibv_device, int, error) {
	var n C.int
	list, err := C.ibv_get_device_list(&n)
	if list == nil {
		if _, serr := os.Stat(SysfsRoot); errors.Is(serr, fs.ErrNotExist) {
			return nil, 0, nil
		}
		return nil, 0, verbErr("ibv_get_device_list", -1, err)
	}
	if n == 0 {
		C.ibv_free_device_list(list)
	}
	return list, int(n), nil
}

// Context is an open RDMA device (struct ibv_context).
type Context struct {
	ctx  *C.struct_ibv_context
	name string
	// borrowed marks a context librdmacm owns (see cmContext): Close
	// leaves it open.
	borrowed bool
}

// Open opens the device called name; an empty name opens the first device.
// An unknown name is an error that lists the devices that exist.
func Open(name string) (*Context, error) {
	list, n, err := deviceList()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, ErrNoDevice
	}
	defer C.ibv_free_device_list(list)
	devs := unsafe.Slice(list, n)
	var dev *C.struct_ibv_device
	names := make([]string, 0, len(devs))
	for _, d := range devs {
		dn := C.GoString(C.ibv_get_device_name(d))
		names = append(names, dn)
		if dev == nil && (name == "" || name == dn) {
			dev = d
		}
	}
	if dev == nil {
		return nil, fmt.Errorf("%w %q: devices present: %s", ErrNoSuchDevice, name, strings.Join(names, ", "))
	}
	ctx, err := C.ibv_open_device(dev)
	if ctx == nil {
		return nil, verbErr("ibv_open_device", -1, err)
	}
	c := &Context{ctx: ctx, name: C.GoString(C.ibv_get_device_name(dev))}
	runtime.SetFinalizer(c, (*Context).Close)
	return c, nil
}

// Name is the device's name, for example "rxe0" or "mlx5_0".
func (c *Context) Name() string { return c.name }

// Close releases the device. It is safe to call on nil and more than once.
func (c *Context) Close() error {
	if c == nil || c.ctx == nil || c.borrowed {
		return nil
	}
	runtime.SetFinalizer(c, nil)
	ret, err := C.ibv_close_device(c.ctx)
	c.ctx = nil
	if ret != 0 {
		return verbErr("ibv_close_device", ret, err)
	}
	return nil
}

// AtomicCap is the device's atomic capability (enum ibv_atomic_cap).
type AtomicCap int

// Atomic capabilities.
const (
	AtomicNone AtomicCap = C.IBV_ATOMIC_NONE
	AtomicHCA  AtomicCap = C.IBV_ATOMIC_HCA
	AtomicGlob AtomicCap = C.IBV_ATOMIC_GLOB
)

func (a AtomicCap) String() string {
	switch a {
	case AtomicNone:
		return "none"
	case AtomicHCA:
		return "hca"
	case AtomicGlob:
		return "global"
	}
	return fmt.Sprintf("atomic cap %d", int(a))
}

// DeviceAttr holds the device attributes that matter for benchmarking.
type DeviceAttr struct {
	FirmwareVersion string
	NodeGUID        uint64 // host byte order
	MaxQP           int
	MaxQPWR         int
	MaxCQE          int
	MaxMRSize       uint64
	MaxSGE          int
	MaxQPRdAtom     int
	MaxQPInitRdAtom int
	PhysPortCount   int
	Atomic          AtomicCap
}

// GUIDString formats a GUID as ibv_devinfo does: 0011:2233:4455:6677.
func GUIDString(g uint64) string {
	return fmt.Sprintf("%04x:%04x:%04x:%04x", g>>48, (g>>32)&0xffff, (g>>16)&0xffff, g&0xffff)
}

// Query returns the device's attributes. Equivalent to: `ibv_devinfo -v`.
func (c *Context) Query() (DeviceAttr, error) {
	var a C.struct_ibv_device_attr
	if ret, err := C.ibv_query_device(c.ctx, &a); ret != 0 {
		return DeviceAttr{}, verbErr("ibv_query_device", ret, err)
	}
	return DeviceAttr{
		FirmwareVersion: C.GoString(&a.fw_ver[0]),
		NodeGUID:        be64(uint64(a.node_guid)),
		MaxQP:           int(a.max_qp),
		MaxQPWR:         int(a.max_qp_wr),
		MaxCQE:          int(a.max_cqe),
		MaxMRSize:       uint64(a.max_mr_size),
		MaxSGE:          int(a.max_sge),
		MaxQPRdAtom:     int(a.max_qp_rd_atom),
		MaxQPInitRdAtom: int(a.max_qp_init_rd_atom),
		PhysPortCount:   int(a.phys_port_cnt),
		Atomic:          AtomicCap(a.atomic_cap),
	}, nil
}

// be64 converts a big-endian (network order) value read as a host-order
// integer into its numeric value.
func be64(v uint64) uint64 {
	var b [8]byte
	*(*uint64)(unsafe.Pointer(&b[0])) = v
	var r uint64
	for _, x := range b {
		r = r<<8 | uint64(x)
	}
	return r
}

// GIDTable returns the populated GID entries of port, in index order. One
// ibv_query_gid_table call reads the whole table (rdma-core falls back to
// sysfs itself on kernels without it): reading sysfs file by file costs a
// RoCE port's 1024 or more opens at every start.
func (c *Context) GIDTable(port int) ([]GIDEntry, error) {
	a, err := c.Query()
	if err != nil {
		return nil, err
	}
	size := 0
	for p := 1; p <= a.PhysPortCount; p++ {
		pa, err := c.QueryPort(p)
		if err != nil {
			return nil, err
		}
		size += pa.GIDTableLen
	}
	if size == 0 {
		return nil, nil
	}
	entries := make([]C.struct_ibv_gid_entry, size)
	n := C.rb_query_gid_table(c.ctx, &entries[0], C.size_t(size))
	if n < 0 {
		return nil, verbErr(fmt.Sprintf("ibv_query_gid_table(%s)", c.name), C.int(n), nil)
	}
	var table []GIDEntry
	for _, e := range entries[:n] {
		if int(e.port_num) != port {
			continue
		}
		// union ibv_gid is the 16 raw bytes: a Go copy, not a cgo call per entry.
		g := GIDEntry{Index: int(e.gid_index), Type: GIDType(e.gid_type), GID: *(*GID)(unsafe.Pointer(&e.gid))}
		if g.GID.IsZero() {
			continue
		}
		if e.ndev_ifindex != 0 {
			if ifc, err := net.InterfaceByIndex(int(e.ndev_ifindex)); err == nil {
				g.Netdev = ifc.Name
			}
		}
		table = append(table, g)
	}
	sort.Slice(table, func(i, j int) bool { return table[i].Index < table[j].Index })
	return table, nil
}

// QueryGID reads GID index of port through libibverbs
// (ibv_query_gid, ibv_query_gid_ex), with its type.
func (c *Context) QueryGID(port, index int) (GID, GIDType, error) {
	var g GID
	if ret, err := C.rb_query_gid(c.ctx, C.uint8_t(port), C.int(index), (*C.uint8_t)(unsafe.Pointer(&g[0]))); ret != 0 {
		return g, 0, verbErr(fmt.Sprintf("ibv_query_gid(port %d, index %d)", port, index), ret, err)
	}
	var t C.uint32_t
	if ret, err := C.rb_query_gid_type(c.ctx, C.uint8_t(port), C.int(index), &t); ret != 0 {
		return g, 0, verbErr(fmt.Sprintf("ibv_query_gid_ex(port %d, index %d)", port, index), ret, err)
	}
	return g, GIDType(t), nil
}
