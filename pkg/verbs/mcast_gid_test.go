package verbs

import (
	"net/netip"
	"testing"
)

func TestGIDIsMulticast(t *testing.T) {
	for s, want := range map[string]bool{
		"::ffff:239.1.2.3": true, "::ffff:224.0.0.1": true, "ff0e::1": true, "ff15::abcd": true,
		"::ffff:192.0.2.1": false, "::ffff:127.0.0.1": false, "fe80::1": false, "::1": false, "::": false,
	} {
		if got := GID(netip.MustParseAddr(s).As16()).IsMulticast(); got != want {
			t.Errorf("%s: multicast %t, want %t", s, got, want)
		}
	}
}

// A group has the IP version of the GID it is for, is multicast, and is
// another one each time.
func TestRandomGroup(t *testing.T) {
	v4 := GID(netip.MustParseAddr("::ffff:192.0.2.1").As16())
	v6 := GID(netip.MustParseAddr("fe80::1").As16())
	seen := map[GID]bool{}
	for range 1000 {
		g := RandomGroup(v4)
		a := netip.AddrFrom16(g)
		if !a.Is4In6() || a.Unmap().As4()[0] != 239 || !g.IsMulticast() {
			t.Fatalf("group for an IPv4 GID: %s", a)
		}
		if b := a.Unmap().As4(); b[1]&0x7f == 0 && b[2] == 0 {
			t.Fatalf("%s: its MAC is that of a 224.0.0.x control group", a)
		}
		h := RandomGroup(v6)
		if h[0] != 0xff || h[1] != 0x15 || h.IsIPv4() || !h.IsMulticast() {
			t.Fatalf("group for an IPv6 GID: %s", h)
		}
		seen[g], seen[h] = true, true
	}
	if len(seen) < 1990 {
		t.Errorf("%d distinct groups in 2000", len(seen))
	}
}
