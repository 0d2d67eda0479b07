package verbs

import (
	"crypto/rand"
	"net/netip"
)

// IsMulticast reports whether g is a multicast GID: ff00::/8, or an
// IPv4-mapped 224.0.0.0/4 address (RoCE v2 over IPv4).
func (g GID) IsMulticast() bool { return netip.AddrFrom16(g).Unmap().IsMulticast() }

// RandomGroup returns a random multicast GID of like's IP version, for a
// group of one run: an IPv4-mapped GID gets ::ffff:239.x.y.z (the
// administratively scoped block), any other ff15::/16 (transient,
// site-local) with 112 random bits. 239.0.0.x and 239.128.0.x are never
// chosen: their Ethernet addresses are those of 224.0.0.x, which switches
// flood.
func RandomGroup(like GID) GID {
	var g GID
	for {
		_, _ = rand.Read(g[:]) // never fails since Go 1.24
		if !like.IsIPv4() {
			g[0], g[1] = 0xff, 0x15
			return g
		}
		if g[13]&0x7f != 0 || g[14] != 0 {
			break
		}
	}
	copy(g[:12], []byte{10: 0xff, 11: 0xff})
	g[12] = 239
	return g
}
