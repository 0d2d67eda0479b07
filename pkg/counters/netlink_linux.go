package counters

import (
	"fmt"
	"time"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// netlinkTimeout bounds each send and receive on the RDMA netlink socket.
const netlinkTimeout = 2 * time.Second

// QueryNetlink returns the hardware counters of an RDMA port over RDMA
// netlink (RDMA_NLDEV_CMD_STAT_GET, as `rdma statistic show link DEV/PORT`).
// The kernel reads them from the driver on every query: unlike sysfs
// hw_counters they are never served from a cache.
func QueryNetlink(device string, port int) (map[string]uint64, error) {
	if port < 0 || port > 1<<31-1 {
		return nil, fmt.Errorf("port %d: want a port number such as 1", port)
	}
	h, err := netlink.NewHandle(unix.NETLINK_RDMA)
	if err != nil {
		return nil, fmt.Errorf("open rdma netlink socket: %w", err)
	}
	defer h.Close()
	if err := h.SetSocketTimeout(netlinkTimeout); err != nil {
		return nil, fmt.Errorf("set rdma netlink socket timeout: %w", err)
	}
	links, err := h.RdmaLinkList()
	if err != nil {
		return nil, fmt.Errorf("list rdma devices over netlink: %w", err)
	}
	var link *netlink.RdmaLink
	for _, l := range links {
		if l.Attrs.Name == device {
			link = l
		}
	}
	if link == nil {
		return nil, fmt.Errorf("rdma netlink lists no device %q: %w", device, errNoDevice)
	}
	st, err := h.RdmaPortStatisticList(link, uint32(port))
	if err != nil {
		return nil, fmt.Errorf("rdma netlink statistic of %s/%d: %w", device, port, err)
	}
	return st.Statistics, nil
}
