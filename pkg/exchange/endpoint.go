package exchange

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"net/netip"
)

// MaxQPs is the most queue pairs one Endpoints message may describe.
const MaxQPs = 1024

const max24 = 1 << 24

// Endpoints describes what the peer needs to connect to the sender: its
// queue pairs, one Endpoint each (RDMA workloads), or the port of its data
// listener (the TCP baseline's server).
type Endpoints struct {
	QPs      []Endpoint `json:"qps"`
	DataPort int        `json:"data_port,omitempty"`
}

// Type returns MsgEndpoints.
func (Endpoints) Type() MsgType { return MsgEndpoints }

func (m Endpoints) validate() error {
	if m.DataPort < 0 || m.DataPort > 65535 {
		return fmt.Errorf("data port %d out of range 0-65535", m.DataPort)
	}
	if len(m.QPs) > MaxQPs {
		return fmt.Errorf("%d queue pairs exceeds the limit of %d", len(m.QPs), MaxQPs)
	}
	for i, e := range m.QPs {
		if err := e.Validate(); err != nil {
			return fmt.Errorf("qps[%d]: %w", i, err)
		}
	}
	return nil
}

// Endpoint is what the peer needs to connect to and access one queue pair:
// its address (QPN, PSN, GID, LID, MTU) and, for RDMA read and write, the
// remote buffer (Addr, RKey, Len).
type Endpoint struct {
	QPN  uint32 `json:"qpn"`  // queue pair number, 24 bits
	PSN  uint32 `json:"psn"`  // initial packet sequence number, 24 bits
	GID  GID    `json:"gid"`  // port GID (RoCE, or IB with a GRH)
	LID  uint16 `json:"lid"`  // port LID (IB)
	MTU  int    `json:"mtu"`  // path MTU in bytes: 256, 512, 1024, 2048 or 4096
	Addr uint64 `json:"addr"` // remote buffer address
	RKey uint32 `json:"rkey"` // remote key of the buffer
	Len  uint64 `json:"len"`  // remote buffer length
	// MGID, with multicast (UD), is the group this queue pair receives
	// through: the peer sends there.
	MGID GID `json:"mgid,omitzero"`
}

// Validate reports whether e's fields are in range.
func (e Endpoint) Validate() error {
	if e.QPN >= max24 {
		return fmt.Errorf("qpn %#x exceeds 24 bits", e.QPN)
	}
	if e.PSN >= max24 {
		return fmt.Errorf("psn %#x exceeds 24 bits", e.PSN)
	}
	switch e.MTU {
	case 256, 512, 1024, 2048, 4096:
	default:
		return fmt.Errorf("mtu %d is not 256, 512, 1024, 2048 or 4096", e.MTU)
	}
	if e.MGID != (GID{}) && !netip.AddrFrom16(e.MGID).Unmap().IsMulticast() {
		return fmt.Errorf("mgid %s is not a multicast address", e.MGID)
	}
	return nil
}

// GID is a 128-bit RDMA global identifier. In JSON it is the IPv6 textual
// form ("fe80::1", "::ffff:192.0.2.1" for RoCE v2 over IPv4), which
// round-trips exactly.
type GID [16]byte

// String returns the IPv6 textual form.
func (g GID) String() string { return netip.AddrFrom16(g).String() }

// MarshalText implements encoding.TextMarshaler.
func (g GID) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler. It accepts IPv6
// textual forms without a zone, including IPv4-mapped ones.
func (g *GID) UnmarshalText(b []byte) error {
	a, err := netip.ParseAddr(string(b))
	if err != nil || !a.Is6() || a.Zone() != "" {
		return fmt.Errorf("gid %q is not an IPv6 address", b)
	}
	*g = a.As16()
	return nil
}

// RandomPSN returns a random 24-bit initial packet sequence number from
// crypto/rand.
func RandomPSN() uint32 {
	var b [4]byte
	_, _ = rand.Read(b[:]) // never fails since Go 1.24
	return binary.BigEndian.Uint32(b[:]) & (max24 - 1)
}
