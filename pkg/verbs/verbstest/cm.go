// Package verbstest holds what the tests of several packages need from an
// RDMA device: the one rule for when an rdma_cm test runs, skips or fails.
package verbstest

import (
	"net/netip"
	"os"
	"testing"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// NetdevEnv names the netdev the soft-RoCE VM put its device on (vm/run.sh):
// "dummy0" says rdma_cm must work, "lo" that it cannot.
const NetdevEnv = "RDMA_BENCH_VM_NETDEV"

// CMTarget returns the test device's name and the IPv4 address rdma_cm
// reaches it at, read from port 1's RoCE v2 IPv4 GID. Without a device it
// skips or fails as [testenv.Device] does. The kernel's rdma_cm cannot
// route over the loopback netdev (rdma_resolve_route: ENODEV), so a device
// on lo, or without a RoCE v2 IPv4 GID, skips the test with the reason;
// it fails instead when the environment says the device is on a routable
// netdev (RDMA_BENCH_VM_NETDEV=dummy0).
func CMTarget(t testing.TB) (string, netip.Addr) {
	t.Helper()
	name := testenv.Device(t)
	ctx, err := verbs.Open(name)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	defer ctx.Close()
	if _, err := ctx.ActivePort(1); err != nil {
		t.Fatal(err)
	}
	table, err := ctx.GIDTable(1)
	if err != nil {
		t.Fatal(err)
	}
	g, err := verbs.SelectGID(table, -1)
	if err != nil {
		t.Fatal(err)
	}
	why := ""
	ip := netip.AddrFrom16(g.GID).Unmap()
	switch {
	case g.Type != verbs.GIDTypeRoCEv2 || !g.GID.IsIPv4():
		why = "has no RoCE v2 IPv4 GID on port 1 (selected " + g.GID.String() + ", " + g.Type.String() + "): rdma_cm needs the IP address of a RoCE netdev"
	case ip.IsLoopback() || g.Netdev == "lo":
		why = "is on the loopback netdev (GID " + g.GID.String() + "): the kernel's rdma_cm cannot route over it (rdma_resolve_route: ENODEV); put the device on a dummy, veth or real netdev (" + NetdevEnv + "=dummy0 in the VM)"
	}
	if why == "" {
		return name, ip
	}
	if os.Getenv(NetdevEnv) == "dummy0" {
		t.Fatalf("%s=dummy0, but %s %s", NetdevEnv, name, why)
	}
	t.Skipf("%s %s", name, why)
	return "", netip.Addr{}
}
