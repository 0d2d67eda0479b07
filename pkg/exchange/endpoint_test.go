package exchange

import (
	"encoding/json"
	"testing"
)

func TestGIDTextRoundTrip(t *testing.T) {
	for _, s := range []string{"::", "fe80::248a:703:49:d4f0", "::ffff:192.0.2.1", "2001:db8::1",
		"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"} {
		g, err := ParseGID(s)
		if err != nil {
			t.Fatalf("ParseGID(%q): %v", s, err)
		}
		if g.String() != s {
			t.Errorf("ParseGID(%q).String() = %q", s, g)
		}
		b, _ := json.Marshal(g)
		var back GID
		if err := json.Unmarshal(b, &back); err != nil || back != g {
			t.Errorf("JSON %s decodes to %v, %v", b, back, err)
		}
	}
	// Every byte pattern round-trips exactly.
	var g GID
	for i := range g {
		g[i] = byte(i*37 + 1)
	}
	back, err := ParseGID(g.String())
	if err != nil || back != g {
		t.Fatalf("%x -> %s -> %x, %v", g, g, back, err)
	}
	for _, bad := range []string{"", "1.2.3.4", "fe80::1%eth0", "xyz", "fe80:::1"} {
		if _, err := ParseGID(bad); err == nil {
			t.Errorf("ParseGID(%q) succeeded", bad)
		}
	}
}

func TestRandomPSN(t *testing.T) {
	seen := map[uint32]bool{}
	for range 200 {
		p := RandomPSN()
		if p >= 1<<24 {
			t.Fatalf("RandomPSN() = %#x exceeds 24 bits", p)
		}
		seen[p] = true
	}
	if len(seen) < 190 {
		t.Fatalf("only %d distinct PSNs in 200 draws", len(seen))
	}
}

func TestEndpointValidate(t *testing.T) {
	for _, mtu := range []int{256, 512, 1024, 2048, 4096} {
		if err := (Endpoint{QPN: 1<<24 - 1, PSN: 1<<24 - 1, MTU: mtu}).Validate(); err != nil {
			t.Errorf("mtu %d: %v", mtu, err)
		}
	}
	for _, e := range []Endpoint{{MTU: 1500}, {MTU: 1024, PSN: 1 << 24}, {MTU: 1024, QPN: 1 << 30}} {
		if err := e.Validate(); err == nil {
			t.Errorf("%+v is valid", e)
		}
	}
}

// ParseGID parses a GID in IPv6 textual form, as a GID's JSON does.
func ParseGID(s string) (GID, error) {
	var g GID
	err := g.UnmarshalText([]byte(s))
	return g, err
}
