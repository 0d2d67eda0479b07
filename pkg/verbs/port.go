package verbs

/*
#include "shim.h"
*/
import "C"

import "fmt"

// PortState is a port's logical state (enum ibv_port_state).
type PortState int

// Port states.
const (
	PortDown   PortState = C.IBV_PORT_DOWN
	PortInit   PortState = C.IBV_PORT_INIT
	PortArmed  PortState = C.IBV_PORT_ARMED
	PortActive PortState = C.IBV_PORT_ACTIVE
)

// String is the state as ibv_port_state_str prints it (PORT_ACTIVE, ...).
func (s PortState) String() string {
	return C.GoString(C.ibv_port_state_str(C.enum_ibv_port_state(s)))
}

// LinkLayer is a port's link layer.
type LinkLayer int

// Link layers.
const (
	LinkUnspecified LinkLayer = C.IBV_LINK_LAYER_UNSPECIFIED
	LinkInfiniBand  LinkLayer = C.IBV_LINK_LAYER_INFINIBAND
	LinkEthernet    LinkLayer = C.IBV_LINK_LAYER_ETHERNET
)

func (l LinkLayer) String() string {
	switch l {
	case LinkInfiniBand, LinkUnspecified:
		return "InfiniBand"
	case LinkEthernet:
		return "Ethernet"
	}
	return fmt.Sprintf("link layer %d", int(l))
}

// MTU is a path MTU in bytes: 256, 512, 1024, 2048 or 4096.
type MTU int

// mtuFromEnum converts enum ibv_mtu to bytes.
func mtuFromEnum(e C.enum_ibv_mtu) MTU {
	if e < 1 || e > 5 {
		return 0
	}
	return MTU(128 << uint(e))
}

// enum returns the enum ibv_mtu value of m, or 0 if m is not a valid MTU.
func (m MTU) enum() C.enum_ibv_mtu {
	for e := C.enum_ibv_mtu(1); e <= 5; e++ {
		if MTU(128<<uint(e)) == m {
			return e
		}
	}
	return 0
}

// Valid reports whether m is one of the MTUs InfiniBand defines.
func (m MTU) Valid() bool { return m.enum() != 0 }

// PortAttr holds the port attributes that matter for benchmarking.
type PortAttr struct {
	Port        int
	State       PortState
	PhysState   int
	MaxMTU      MTU
	ActiveMTU   MTU
	LID         uint16
	LinkLayer   LinkLayer
	GIDTableLen int
	ActiveSpeed int // raw ibv_port_attr.active_speed
	ActiveWidth int // raw ibv_port_attr.active_width
	MaxMsgSize  uint32
}

// PhysStateString names the physical port state as ibv_devinfo does.
func (p PortAttr) PhysStateString() string {
	names := map[int]string{1: "SLEEP", 2: "POLLING", 3: "DISABLED", 4: "PORT_CONFIGURATION_TRAINING",
		5: "LINK_UP", 6: "LINK_ERROR_RECOVERY", 7: "PHY_TEST"}
	if s, ok := names[p.PhysState]; ok {
		return s
	}
	return fmt.Sprintf("%d", p.PhysState)
}

// WidthLanes is the active link width in lanes (1X, 4X, 8X, 12X, 2X).
func (p PortAttr) WidthLanes() int {
	switch p.ActiveWidth {
	case 1:
		return 1
	case 2:
		return 4
	case 4:
		return 8
	case 8:
		return 12
	case 16:
		return 2
	}
	return 0
}

// LaneGbps is the active per-lane signalling rate in Gb/s, as ibv_devinfo
// decodes active_speed.
func (p PortAttr) LaneGbps() float64 {
	switch p.ActiveSpeed {
	case 1:
		return 2.5
	case 2:
		return 5
	case 4, 8:
		return 10
	case 16:
		return 14
	case 32:
		return 25
	case 64:
		return 50
	case 128:
		return 100
	}
	return 0
}

// SpeedString renders width and speed as "4X 25 Gbps" (or "unknown").
func (p PortAttr) SpeedString() string {
	if p.WidthLanes() == 0 || p.LaneGbps() == 0 {
		return "unknown"
	}
	return fmt.Sprintf("%dX %g Gbps", p.WidthLanes(), p.LaneGbps())
}

// QueryPort returns the attributes of port (numbered from 1).
// Equivalent to: `ibv_devinfo -d DEV -i PORT`.
func (c *Context) QueryPort(port int) (PortAttr, error) {
	if port < 1 || port > 255 {
		return PortAttr{}, fmt.Errorf("port %d out of range: ports are numbered from 1", port)
	}
	var a C.struct_ibv_port_attr
	if ret, err := C.rb_query_port(c.ctx, C.uint8_t(port), &a); ret != 0 {
		return PortAttr{}, verbErr(fmt.Sprintf("ibv_query_port(%s, port %d)", c.name, port), ret, err)
	}
	return PortAttr{
		Port:        port,
		State:       PortState(a.state),
		PhysState:   int(a.phys_state),
		MaxMTU:      mtuFromEnum(a.max_mtu),
		ActiveMTU:   mtuFromEnum(a.active_mtu),
		LID:         uint16(a.lid),
		LinkLayer:   LinkLayer(a.link_layer),
		GIDTableLen: int(a.gid_tbl_len),
		ActiveSpeed: int(a.active_speed),
		ActiveWidth: int(a.active_width),
		MaxMsgSize:  uint32(a.max_msg_sz),
	}, nil
}

// ActivePort returns the attributes of port and an error naming the port
// and its state when the port is not active.
func (c *Context) ActivePort(port int) (PortAttr, error) {
	if attr, err := c.Query(); err == nil && (port < 1 || port > attr.PhysPortCount) {
		return PortAttr{}, fmt.Errorf("%w: port %d of %s: it has ports 1..%d", ErrNoSuchPort, port, c.name, attr.PhysPortCount)
	}
	pa, err := c.QueryPort(port)
	if err != nil {
		return pa, err
	}
	if pa.State != PortActive {
		return pa, fmt.Errorf("port %d of %s is %s (physical state %s), not PORT_ACTIVE", port, c.name, pa.State, pa.PhysStateString())
	}
	return pa, nil
}
