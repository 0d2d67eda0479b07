package counters

import "errors"

// errNoDevice reports an RDMA device that netlink does not list.
var errNoDevice = errors.New("no such rdma device")

// readNetlink adds the netlink statistic of the port to s.
func (r Reader) readNetlink(s *Snapshot) {
	if r.Netlink == nil {
		s.Unavailable = append(s.Unavailable, Unavailable{
			Source: SourceNetlink, Reason: ReasonUnsupported, Detail: "no netlink query configured",
		})
		return
	}
	stats, err := r.Netlink(s.Device, s.Port)
	if err != nil {
		reason := reasonOf(err)
		if errors.Is(err, errNoDevice) {
			reason = ReasonMissing
		}
		s.Unavailable = append(s.Unavailable, Unavailable{Source: SourceNetlink, Reason: reason, Detail: err.Error()})
		return
	}
	if len(stats) == 0 {
		s.Unavailable = append(s.Unavailable, Unavailable{
			Source: SourceNetlink, Reason: ReasonUnsupported,
			Detail: "the kernel returned no hardware counters for the port",
		})
		return
	}
	for name, v := range stats {
		s.Counters = append(s.Counters, Counter{Source: SourceNetlink, Name: name, Value: v})
	}
}
