package verbs

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// GID is a 128-bit global identifier, in network byte order.
type GID [16]byte

// String renders g as an IPv6 address (RoCE v2 IPv4 GIDs as ::ffff:a.b.c.d),
// as ibv_devinfo -v does.
func (g GID) String() string { return netip.AddrFrom16(g).String() }

// IsZero reports whether g is all zeros (an unused table entry).
func (g GID) IsZero() bool { return g == GID{} }

// IsIPv4 reports whether g is an IPv4-mapped address (::ffff:a.b.c.d).
func (g GID) IsIPv4() bool { return net.IP(g[:]).To4() != nil }

// IsLinkLocal reports whether g is an IPv6 link-local address (fe80::/10).
func (g GID) IsLinkLocal() bool { return net.IP(g[:]).IsLinkLocalUnicast() }

// GIDType is the type of a GID table entry.
type GIDType int

// GID types.
const (
	GIDTypeIB GIDType = iota
	GIDTypeRoCEv1
	GIDTypeRoCEv2
)

func (t GIDType) String() string {
	switch t {
	case GIDTypeIB:
		return "IB"
	case GIDTypeRoCEv1:
		return "RoCE v1"
	case GIDTypeRoCEv2:
		return "RoCE v2"
	}
	return fmt.Sprintf("gid type %d", int(t))
}

// GIDEntry is one populated entry of a port's GID table.
type GIDEntry struct {
	Index int
	GID   GID
	Type  GIDType
	// Netdev is the network device the GID belongs to (RoCE only).
	Netdev string
}

// SysfsRoot is where the kernel exposes RDMA devices.
const SysfsRoot = "/sys/class/infiniband"

// SelectGID chooses the GID to use from a port's table. With override >= 0
// that index is used (an error names the valid indexes when it is not in
// the table). Otherwise, on a RoCE port the first RoCE v2 IPv4-mapped GID
// wins, then any RoCE v2 GID, then the first entry; on InfiniBand, index 0.
func SelectGID(table []GIDEntry, override int) (GIDEntry, error) {
	if len(table) == 0 {
		return GIDEntry{}, errors.New("the port's gid table is empty: for RoCE, give the network device an IP address")
	}
	if override >= 0 {
		for _, e := range table {
			if e.Index == override {
				return e, nil
			}
		}
		idx := make([]string, len(table))
		for i, e := range table {
			idx[i] = strconv.Itoa(e.Index)
		}
		return GIDEntry{}, fmt.Errorf("%w: gid index %d out of range: populated indexes are %s", ErrNoSuchGID, override, strings.Join(idx, ", "))
	}
	best := -1
	rank := func(e GIDEntry) int {
		switch {
		case e.Type == GIDTypeRoCEv2 && e.GID.IsIPv4():
			return 3
		case e.Type == GIDTypeRoCEv2 && !e.GID.IsLinkLocal():
			return 2
		case e.Type == GIDTypeRoCEv2:
			return 1
		}
		return 0
	}
	for i, e := range table {
		if best < 0 || rank(e) > rank(table[best]) {
			best = i
		}
	}
	return table[best], nil
}
