package workloads

import (
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

func gidOf(t *testing.T, s string) verbs.GID {
	t.Helper()
	return verbs.GID(netip.MustParseAddr(s).As16())
}

// mcastSide is a side of send_bw or send_lat with -g, without a device.
func mcastSide(t *testing.T, workload string, r role, gid string) *rdmaSide {
	t.Helper()
	return mcastSideWith(t, workload, r, gid, func(*point.Spec) {})
}

// mcastSideWith is mcastSide with mod applied to the Spec first.
func mcastSideWith(t *testing.T, workload string, r role, gid string, mod func(*point.Spec)) *rdmaSide {
	t.Helper()
	spec, _, err := spec(workload, func(s *point.Spec) { s.Mcast = true; mod(s) }).Resolve(hostLimits)
	if err != nil {
		t.Fatal(err)
	}
	w := mustLookup(t, workload)
	return &rdmaSide{device: &device{gid: verbs.GIDEntry{GID: gidOf(t, gid)}}, s: newSession(spec, DefaultLocal(), w, r, nil, 0)}
}

// Who has groups and who sends to them: send_bw's server receives, its
// client sends; in send_lat both do both.
func TestMcastRoles(t *testing.T) {
	for _, c := range []struct {
		workload       string
		r              role
		receive, sends bool
	}{
		{"send_bw", server, true, false}, {"send_bw", client, false, true},
		{"send_lat", server, true, true}, {"send_lat", client, true, true},
	} {
		n := mcastSide(t, c.workload, c.r, "::ffff:192.0.2.1")
		if n.mcastReceives() != c.receive || n.mcastSends() != c.sends {
			t.Errorf("%s %s: receives %t sends %t", c.workload, c.r, n.mcastReceives(), n.mcastSends())
		}
	}
	n := mcastSideWith(t, "send_bw", server, "::ffff:192.0.2.1", func(s *point.Spec) { s.Bidir = true })
	if !n.mcastSends() {
		t.Error("send_bw -b: the server sends too")
	}
}

// A sender's address handle targets the peer's group with QP number
// 0xFFFFFF and a GRH; a peer without a group, or of the other IP version,
// is refused.
func TestMcastTarget(t *testing.T) {
	n := mcastSide(t, "send_bw", client, "::ffff:192.0.2.1")
	group := gidOf(t, "::ffff:239.1.2.3")
	pe := exchange.Endpoint{QPN: 77, GID: exchange.GID(gidOf(t, "::ffff:192.0.2.2")), MGID: exchange.GID(group)}
	path, remote, err := n.mcastTarget(verbs.Path{Port: 1}, verbs.Remote{QPN: 77}, pe, 0)
	if err != nil || !path.Global || remote.QPN != verbs.MulticastQPN || remote.GID != group {
		t.Errorf("target: %+v %+v, %v", path, remote, err)
	}
	pe.MGID = exchange.GID{}
	if _, _, err := n.mcastTarget(verbs.Path{}, verbs.Remote{}, pe, 3); err == nil || err.Error() != "the peer gave no multicast group for queue pair 3" {
		t.Errorf("no group: %v", err)
	}
	pe.MGID = exchange.GID(gidOf(t, "ff15::1"))
	if _, _, err := n.mcastTarget(verbs.Path{}, verbs.Remote{}, pe, 0); err == nil || !strings.Contains(err.Error(), "different IP versions") {
		t.Errorf("an IPv6 group for an IPv4 GID: %v", err)
	}
	// Without -g nothing changes.
	n.s.spec.Mcast = false
	pe.MGID = exchange.GID{}
	if path, remote, err := n.mcastTarget(verbs.Path{Port: 1}, verbs.Remote{QPN: 77}, pe, 0); err != nil || path.Global || remote.QPN != 77 {
		t.Errorf("unicast: %+v %+v, %v", path, remote, err)
	}
}

// The result lists the server's groups first, then the client's.
func TestMcastParams(t *testing.T) {
	n := mcastSide(t, "send_lat", client, "::ffff:192.0.2.1")
	mine := gidOf(t, "::ffff:239.0.1.1")
	n.ws = []*rdmaWorker{{qps: []*qpRes{{mc: &mcastMember{group: mine}}}}}
	n.peer.QPs = []exchange.Endpoint{{MGID: exchange.GID(gidOf(t, "::ffff:239.0.2.2"))}}
	var p report.Params
	n.mcastParams(&p)
	if want := []string{"::ffff:239.0.2.2", "::ffff:239.0.1.1"}; !slices.Equal(p.McastGroups, want) {
		t.Errorf("groups %q, want %q", p.McastGroups, want)
	}
	if got := n.ws[0].qps[0].mgid(); got != exchange.GID(mine) {
		t.Errorf("endpoint mgid %s", got)
	}
	if got := (&qpRes{}).mgid(); got != (exchange.GID{}) {
		t.Errorf("no group: mgid %s", got)
	}
}

// joinIP makes the netdev a member of the group while its socket is open.
func TestJoinIP(t *testing.T) {
	g := verbs.RandomGroup(gidOf(t, "::ffff:127.0.0.1"))
	c, err := joinIP("lo", g)
	if err != nil {
		t.Skipf("no IPv4 multicast here: %v", err)
	}
	a := netip.AddrFrom16(g).Unmap().As4()
	if b, err := os.ReadFile("/proc/net/igmp"); err == nil && !strings.Contains(string(b), igmpHex(a)) {
		t.Errorf("lo is not a member of %s:\n%s", netip.AddrFrom4(a), b)
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
	if b, err := os.ReadFile("/proc/net/igmp"); err == nil && strings.Contains(string(b), igmpHex(a)) {
		t.Errorf("lo is still a member of %s once the socket is closed", netip.AddrFrom4(a))
	}
	if _, err := joinIP("nosuch0", g); err == nil || !strings.Contains(err.Error(), "joining multicast group ::ffff:239.") {
		t.Errorf("no such netdev: %v", err)
	}
}

// igmpHex is an IPv4 address as /proc/net/igmp writes it.
func igmpHex(a [4]byte) string {
	const digits = "0123456789ABCDEF"
	var b []byte
	for i := 3; i >= 0; i-- {
		b = append(b, digits[a[i]>>4], digits[a[i]&15])
	}
	return string(b)
}
