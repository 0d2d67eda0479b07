package testenv

import (
	"math/rand/v2"
	"net"
	"strconv"
	"testing"
)

// Ports tests may use by number, all below the kernel's ephemeral range
// (32768 up by default): FloodBase up to PortBase is left to tests that
// pick their connections' source ports, PortBase up to PortEnd is where
// FreePort draws.
const (
	FloodBase = 10000
	PortBase  = 20000
	PortEnd   = 32000
)

// FreePort returns a TCP port nobody listens on, drawn at random between
// PortBase and PortEnd. A port from the ephemeral range, freed and handed
// to a child process or a later listen, can meanwhile become the local
// port of any outgoing connection on the machine (go test runs packages
// side by side), and that listen then fails with "address already in
// use"; below the range only another FreePort can take it.
func FreePort(t testing.TB) string {
	t.Helper()
	start := PortBase + rand.IntN(PortEnd-PortBase)
	for i := range PortEnd - PortBase {
		p := PortBase + (start-PortBase+i)%(PortEnd-PortBase)
		if l, err := net.Listen("tcp", ":"+strconv.Itoa(p)); err == nil {
			l.Close()
			return strconv.Itoa(p)
		}
	}
	t.Fatalf("no free TCP port between %d and %d", PortBase, PortEnd)
	return ""
}
