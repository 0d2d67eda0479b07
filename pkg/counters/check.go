package counters

import (
	"fmt"
	"strings"
)

// Role is what the checked port did in the run.
type Role string

// Roles.
const (
	RoleRequester Role = "requester" // sent the requests
	RoleResponder Role = "responder" // received them
	// RoleLoopback: both QPs on this port (one device talking to itself);
	// its counters see both directions.
	RoleLoopback Role = "loopback"
)

// Status is how a measured figure compares with the model.
type Status string

// Statuses.
const (
	StatusWithin    Status = "within"    // inside the expected range
	StatusExplained Status = "explained" // above it by no more than the counted retransmissions allow
	StatusDisagrees Status = "disagrees" // outside, unexplained
	StatusUnusable  Status = "unusable"  // the counter went backwards or saturated
)

// Finding compares one counter with the model.
type Finding struct {
	Figure   string `json:"figure"`  // tx_packets, rx_bytes, send_completions, ...
	Counter  string `json:"counter"` // source/name of the counter read
	Measured uint64 `json:"measured"`
	Expected Range  `json:"expected"`
	// Allowance is how far above Expected.Max the counted retransmissions
	// allow the figure to be (0 in a clean run).
	Allowance uint64 `json:"retransmission_allowance,omitempty"`
	Status    Status `json:"status"`
}

// WireCheck is the outcome of Check.
type WireCheck struct {
	Role     Role      `json:"role"`
	Findings []Finding `json:"findings"`
	// RetransmissionEvents sums the retransmission counters that moved.
	RetransmissionEvents uint64 `json:"retransmission_events"`
}

// String says "within the expected overhead (...)" or lists the figures
// that disagree with the model.
func (r WireCheck) String() string {
	if len(r.Findings) == 0 {
		return "no counter to check against the wire model"
	}
	var bad, good []string
	for _, f := range r.Findings {
		switch f.Status {
		case StatusWithin, StatusExplained:
			good = append(good, fmt.Sprintf("%s %d", f.Figure, f.Measured))
		default:
			msg := fmt.Sprintf("%s: %s measured %d, expected %s", f.Figure, f.Counter, f.Measured, f.Expected)
			if f.Allowance > 0 {
				msg += fmt.Sprintf(" (+%d for retransmissions)", f.Allowance)
			}
			if f.Status == StatusUnusable {
				msg = fmt.Sprintf("%s: %s went backwards or saturated", f.Figure, f.Counter)
			}
			bad = append(bad, msg)
		}
	}
	if len(bad) > 0 {
		return "disagrees with the wire model: " + strings.Join(bad, "; ")
	}
	s := "within the expected overhead (" + strings.Join(good, ", ") + ")"
	if r.RetransmissionEvents > 0 {
		s += fmt.Sprintf(" allowing for %d counted retransmission events", r.RetransmissionEvents)
	}
	return s
}

// figure is one measurable quantity: the counters that measure it and the
// model's range for it.
type figure struct {
	name     string
	counters []string
	want     Range
	largest  uint64 // bytes per extra packet (0: a packet or operation count)
	perEvent bool   // retransmissions may add to it
}

// Check compares the deltas of a port that played role in the run with the
// expectation: packets and bytes sent and received (rxe sent_pkts and
// rcvd_pkts, PMA port_xmit_packets, port_rcv_packets, port_xmit_data and
// port_rcv_data) and rxe's completed SENDs and receives. Counters count all
// traffic of the port, so check a port nothing else uses. In a run that is
// not clean a figure may exceed the model by the packets the counted
// retransmission events explain; peers adds the other side's deltas (a
// two-host run), whose retransmission counters count too.
func (e Expectation) Check(role Role, d Deltas, peers ...Deltas) (WireCheck, error) {
	var tx, rx Flow
	switch role {
	case RoleRequester:
		tx, rx = e.Requests, e.Responses
	case RoleResponder:
		tx, rx = e.Responses, e.Requests
	case RoleLoopback:
		tx = e.Requests.add(e.Responses)
		rx = tx
	default:
		return WireCheck{}, fmt.Errorf("role %q: want requester, responder or loopback", role)
	}
	txBytes, rxBytes := e.dataRange(tx), e.dataRange(rx)
	figs := []figure{
		{"tx_packets", []string{"sent_pkts", "port_xmit_packets"}, tx.Packets, 0, true},
		{"rx_packets", []string{"rcvd_pkts", "port_rcv_packets"}, rx.Packets, 0, true},
		{"tx_bytes", []string{"port_xmit_data"}, txBytes, e.largestData(tx), true},
		{"rx_bytes", []string{"port_rcv_data"}, rxBytes, e.largestData(rx), true},
	}
	if role != RoleResponder {
		figs = append(figs, figure{"send_completions", []string{"rdma_sends"}, exact(e.SendCompletions), 0, false})
	}
	if role != RoleRequester {
		recvs := exact(e.RecvCompletions)
		if e.Workload.Transport != RC {
			// UD and UC drop a message that finds no receive posted (the
			// packet still arrives): fewer completions are the transport's
			// rule, not a fault; the run's "received" says how many.
			recvs = Range{0, e.RecvCompletions}
		}
		figs = append(figs, figure{"recv_completions", []string{"rdma_recvs"}, recvs, 0, false})
	}

	all := append([]Deltas{d}, peers...)
	clean := true
	for _, p := range all {
		clean = clean && p.Clean().Clean
	}
	r := WireCheck{Role: role, RetransmissionEvents: retransmissions(all...)}
	extraPackets := satMul(r.RetransmissionEvents, e.PacketsPerRetransmission)
	for _, f := range figs {
		for _, name := range f.counters {
			c, ok := d.Get(name)
			if !ok || c.Source == SourceNetdev {
				continue
			}
			fd := Finding{Figure: f.name, Counter: string(c.Source) + "/" + c.Name, Measured: c.Delta, Expected: f.want}
			if !clean && f.perEvent {
				fd.Allowance = extraPackets
				if f.largest > 0 {
					fd.Allowance = satMul(extraPackets, f.largest)
				}
			}
			switch {
			case !c.Usable():
				fd.Status = StatusUnusable
			case f.want.Contains(c.Delta):
				fd.Status = StatusWithin
			case c.Delta > f.want.Max && c.Delta-f.want.Max <= fd.Allowance:
				fd.Status = StatusExplained
			default:
				fd.Status = StatusDisagrees
			}
			r.Findings = append(r.Findings, fd)
		}
	}
	return r, nil
}

// dataRange is what PMA port_xmit_data and port_rcv_data should show. On
// InfiniBand, IBA defines it: LRH through ICRC. On RoCE which headers a
// driver counts is not established here (no RoCE NIC was at hand): any
// amount from the transport bytes to whole frames is accepted.
func (e Expectation) dataRange(f Flow) Range {
	switch e.Workload.Link {
	case LinkIB, LinkIBGlobal:
		return f.PacketBytes
	}
	return Range{f.TransportBytes.Min, f.FrameBytes.Max}
}

// largestData is the largest packet of a flow as dataRange counts it.
func (e Expectation) largestData(f Flow) uint64 {
	switch e.Workload.Link {
	case LinkIB, LinkIBGlobal:
		return f.largest.packet
	}
	return f.largest.frame
}
