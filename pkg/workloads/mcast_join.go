package workloads

import (
	"fmt"
	"io"
	"net"

	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// joinIP makes the network device netdev a member of the IP multicast
// group g (IGMP or MLD) for as long as the returned socket is open. The
// socket is bound to a port of its own, so it takes none of the group's
// RoCE v2 packets: the membership only lets the device's IP stack accept
// them and pass them on to the RDMA device's UDP port (soft-RoCE receives
// through it).
func joinIP(netdev string, g verbs.GID) (io.Closer, error) {
	ifi, err := net.InterfaceByName(netdev)
	if err != nil {
		return nil, fmt.Errorf("joining multicast group %s: %w", g, err)
	}
	network, ip := "udp6", net.IP(g[:])
	if v4 := ip.To4(); v4 != nil {
		network, ip = "udp4", v4
	}
	c, err := net.ListenMulticastUDP(network, ifi, &net.UDPAddr{IP: ip})
	if err != nil {
		return nil, fmt.Errorf("joining multicast group %s on %s: %w", g, netdev, err)
	}
	return c, nil
}
