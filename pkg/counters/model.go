package counters

import (
	"fmt"
	"math/bits"
)

// Op is an RDMA operation.
type Op string

// Operations the wire model knows.
const (
	OpWrite    Op = "write"     // RDMA WRITE
	OpWriteImm Op = "write_imm" // RDMA WRITE with immediate
	OpRead     Op = "read"      // RDMA READ
	OpSend     Op = "send"      // SEND
	OpSendImm  Op = "send_imm"  // SEND with immediate
	OpAtomic   Op = "atomic"    // compare-and-swap or fetch-and-add (8 bytes)
)

// Transport is a QP transport type.
type Transport string

// Transports.
const (
	RC Transport = "RC" // reliable connected: acknowledged
	UC Transport = "UC" // unreliable connected: WRITE and SEND, no ACKs
	UD Transport = "UD" // unreliable datagram: SEND of at most one MTU
)

// Link is the framing around the InfiniBand transport headers.
type Link string

// Links.
const (
	LinkRoCEv2IPv4 Link = "rocev2-ipv4" // Ethernet, IPv4, UDP 4791
	LinkRoCEv2IPv6 Link = "rocev2-ipv6" // Ethernet, IPv6, UDP 4791
	LinkIB         Link = "ib"          // InfiniBand LRH, no GRH (within a subnet)
	LinkIBGlobal   Link = "ib-grh"      // InfiniBand LRH and GRH
)

// AckPolicy is how the RC responder acknowledges requests.
type AckPolicy string

// Acknowledgement policies.
const (
	// AcksRXE is Linux rxe (6.1): the requester sets AckReq on the last
	// packet of every message and on every 66th packet within a message
	// (RXE_MAX_PKT_PER_ACK is 64, tested after a post-increment), and the
	// responder answers every AckReq with its own ACK: exact counts.
	AcksRXE AckPolicy = "rxe"
	// AcksAny is any IBA responder, which may coalesce: from a single ACK
	// for the whole run up to one ACK per request packet. The default.
	AcksAny AckPolicy = "any"
)

// Workload is what a run puts on the wire: Ops operations of MessageBytes.
type Workload struct {
	Op           Op        `json:"op"`
	Transport    Transport `json:"transport"`
	MessageBytes int64     `json:"message_bytes"`
	PathMTUBytes int       `json:"path_mtu_bytes"` // 256, 512, 1024, 2048 or 4096
	Ops          int64     `json:"ops"`
	Link         Link      `json:"link"`
	VLAN         bool      `json:"vlan,omitempty"` // an 802.1Q tag on RoCE frames
	Acks         AckPolicy `json:"acks,omitempty"`
}

// Range is an inclusive range of counts.
type Range struct {
	Min uint64 `json:"min"`
	Max uint64 `json:"max"`
}

// Contains reports whether v is within r.
func (r Range) Contains(v uint64) bool { return v >= r.Min && v <= r.Max }

// String gives "N" or "MIN..MAX".
func (r Range) String() string {
	if r.Min == r.Max {
		return fmt.Sprint(r.Min)
	}
	return fmt.Sprintf("%d..%d", r.Min, r.Max)
}

// add sums two ranges, saturating.
func (r Range) add(o Range) Range { return Range{satAdd(r.Min, o.Min), satAdd(r.Max, o.Max)} }

// Flow is the traffic of one direction, counted at each layer.
type Flow struct {
	Packets Range `json:"packets"`
	// TransportBytes: BTH through ICRC (payload and pad included).
	TransportBytes Range `json:"transport_bytes"`
	// PacketBytes: RoCE: IP header through ICRC; IB: LRH through ICRC,
	// what IBA's PortXmitData counts.
	PacketBytes Range `json:"packet_bytes"`
	// NetdevBytes: RoCE: Ethernet header through ICRC, what Linux netdev
	// tx_bytes and rx_bytes count (no FCS, no padding); IB: 0.
	NetdevBytes Range `json:"netdev_bytes"`
	// FrameBytes: RoCE: Ethernet header through FCS, padded to 64 bytes;
	// IB: LRH through VCRC.
	FrameBytes Range `json:"frame_bytes"`
	// WireBytes: RoCE: frames plus preamble, SFD and inter-frame gap
	// (20 bytes each); IB: 0 (encoding and delimiters not modelled).
	WireBytes Range `json:"wire_bytes"`

	largest sizes // the largest packet of the flow, at each layer
}

func (f Flow) add(o Flow) Flow {
	return Flow{
		Packets:        f.Packets.add(o.Packets),
		TransportBytes: f.TransportBytes.add(o.TransportBytes),
		PacketBytes:    f.PacketBytes.add(o.PacketBytes),
		NetdevBytes:    f.NetdevBytes.add(o.NetdevBytes),
		FrameBytes:     f.FrameBytes.add(o.FrameBytes),
		WireBytes:      f.WireBytes.add(o.WireBytes),
		largest:        f.largest.max(o.largest),
	}
}

// Expectation is what the counters should show for a Workload.
type Expectation struct {
	Workload Workload `json:"workload"`
	// Requests flow from the requester to the responder.
	Requests Flow `json:"requests"`
	// Responses flow back: ACKs, READ responses, atomic ACKs.
	Responses Flow `json:"responses"`
	// SendCompletions is the requester's completed SENDs (rxe rdma_sends).
	SendCompletions uint64 `json:"send_completions"`
	// RecvCompletions is the responder's completed receives (rxe
	// rdma_recvs): one per SEND and per WRITE with immediate.
	RecvCompletions uint64 `json:"recv_completions"`
	// PacketsPerRetransmission bounds the extra packets one counted
	// retransmission event (a duplicate, sequence NAK, RNR NAK or retry)
	// may add in each direction: the resent request and its response (a
	// whole READ response for READ).
	PacketsPerRetransmission uint64 `json:"packets_per_retransmission"`
}

// satAdd adds without wrapping.
func satAdd(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	if carry != 0 {
		return ^uint64(0)
	}
	return s
}

// satMul multiplies without wrapping.
func satMul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return ^uint64(0)
	}
	return lo
}
