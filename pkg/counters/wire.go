package counters

import "fmt"

// Header sizes in bytes: IBA volume 1 chapter 9 (transport), RoCE v2
// annex A17 (UDP port 4791), IEEE 802.3 (Ethernet).
const (
	bthBytes          = 12 // base transport header
	rethBytes         = 16 // RDMA extended transport header (WRITE first/only, READ request)
	aethBytes         = 4  // ACK extended transport header
	dethBytes         = 8  // datagram extended transport header (UD)
	immBytes          = 4  // immediate data
	atomicETHBytes    = 28 // atomic extended transport header
	atomicAckETHBytes = 8  // atomic ACK extended transport header
	icrcBytes         = 4  // invariant CRC
	lrhBytes          = 8  // IB local route header
	grhBytes          = 40 // IB global route header
	vcrcBytes         = 2  // IB variant CRC
	ipv4Bytes         = 20
	ipv6Bytes         = 40
	udpBytes          = 8
	ethBytes          = 14 // Ethernet header without VLAN tag
	vlanBytes         = 4  // 802.1Q tag
	fcsBytes          = 4  // Ethernet frame check sequence
	minFrameBytes     = 64 // shortest Ethernet frame, FCS included
	ethGapBytes       = 20 // preamble 7, SFD 1, inter-frame gap 12
)

// sizes is one packet's size at each layer (see Flow).
type sizes struct{ transport, packet, netdev, frame, wire uint64 }

func (s sizes) max(o sizes) sizes {
	return sizes{max(s.transport, o.transport), max(s.packet, o.packet),
		max(s.netdev, o.netdev), max(s.frame, o.frame), max(s.wire, o.wire)}
}

// layers sizes a packet whose transport part (BTH through ICRC) is t bytes.
func (w Workload) layers(t uint64) sizes {
	s := sizes{transport: t}
	switch w.Link {
	case LinkIB, LinkIBGlobal:
		s.packet = t + lrhBytes
		if w.Link == LinkIBGlobal {
			s.packet += grhBytes
		}
		s.frame = s.packet + vcrcBytes
		return s
	case LinkRoCEv2IPv6:
		s.packet = t + ipv6Bytes + udpBytes
	default:
		s.packet = t + ipv4Bytes + udpBytes
	}
	s.netdev = s.packet + ethBytes
	if w.VLAN {
		s.netdev += vlanBytes
	}
	s.frame = max(s.netdev+fcsBytes, minFrameBytes)
	s.wire = s.frame + ethGapBytes
	return s
}

// group is n packets per operation, each with hdr header bytes (BTH and
// extension headers) and payload bytes.
type group struct {
	n            uint64
	hdr, payload uint64
}

// transport is the group's packet size from BTH through ICRC.
func (g group) transport() uint64 { return g.hdr + g.payload + (-g.payload)&3 + icrcBytes }

// segments splits a message of size bytes into packets of at most mtu:
// the first (or only) packet's headers, the middle ones', the last one's.
func segments(size, mtu uint64, only, first, middle, last uint64) []group {
	n := max(1, (size+mtu-1)/mtu)
	if n == 1 {
		return []group{{1, only, size}}
	}
	gs := []group{{1, first, mtu}}
	if n > 2 {
		gs = append(gs, group{n - 2, middle, mtu})
	}
	return append(gs, group{1, last, size - (n-1)*mtu})
}

// perOp returns one operation's request packets and its response packets
// other than plain ACKs (READ responses, atomic ACKs).
func (w Workload) perOp() (req, resp []group) {
	size, mtu := uint64(w.MessageBytes), uint64(w.PathMTUBytes)
	var imm uint64
	if w.Op == OpWriteImm || w.Op == OpSendImm {
		imm = immBytes
	}
	switch w.Op {
	case OpWrite, OpWriteImm:
		req = segments(size, mtu, bthBytes+rethBytes+imm, bthBytes+rethBytes, bthBytes, bthBytes+imm)
	case OpSend, OpSendImm:
		only := uint64(bthBytes + imm)
		if w.Transport == UD {
			only += dethBytes
		}
		req = segments(size, mtu, only, bthBytes, bthBytes, bthBytes+imm)
	case OpRead:
		req = []group{{1, bthBytes + rethBytes, 0}}
		resp = segments(size, mtu, bthBytes+aethBytes, bthBytes+aethBytes, bthBytes, bthBytes+aethBytes)
	case OpAtomic:
		req = []group{{1, bthBytes + atomicETHBytes, 0}}
		resp = []group{{1, bthBytes + aethBytes + atomicAckETHBytes, 0}}
	}
	return req, resp
}

// validate checks a workload, naming what is wrong and what is allowed.
func (w Workload) validate() error {
	switch w.Op {
	case OpWrite, OpWriteImm, OpRead, OpSend, OpSendImm, OpAtomic:
	default:
		return fmt.Errorf("op %q: want write, write_imm, read, send, send_imm or atomic", w.Op)
	}
	switch w.Transport {
	case RC:
	case UC:
		if w.Op == OpRead || w.Op == OpAtomic {
			return fmt.Errorf("op %s over UC: UC carries only write, write_imm, send and send_imm", w.Op)
		}
	case UD:
		if w.Op != OpSend && w.Op != OpSendImm {
			return fmt.Errorf("op %s over UD: UD carries only send and send_imm", w.Op)
		}
	default:
		return fmt.Errorf("transport %q: want RC, UC or UD", w.Transport)
	}
	switch w.PathMTUBytes {
	case 256, 512, 1024, 2048, 4096:
	default:
		return fmt.Errorf("path MTU %d bytes: want 256, 512, 1024, 2048 or 4096", w.PathMTUBytes)
	}
	switch {
	case w.MessageBytes < 0 || w.MessageBytes > 1<<31:
		return fmt.Errorf("message size %d bytes: want 0 to 2147483648", w.MessageBytes)
	case w.Transport == UD && w.MessageBytes > int64(w.PathMTUBytes):
		return fmt.Errorf("UD message size %d bytes: want at most the path MTU (%d)", w.MessageBytes, w.PathMTUBytes)
	case w.Op == OpAtomic && w.MessageBytes != 8 && w.MessageBytes != 0:
		return fmt.Errorf("atomic message size %d bytes: want 8 (or 0 for the default 8)", w.MessageBytes)
	case w.Ops < 0:
		return fmt.Errorf("operation count %d: want 0 or more", w.Ops)
	}
	switch w.Link {
	case LinkRoCEv2IPv4, LinkRoCEv2IPv6:
	case LinkIB, LinkIBGlobal:
		if w.VLAN {
			return fmt.Errorf("vlan on link %s: VLAN tags exist only on RoCE links", w.Link)
		}
	default:
		return fmt.Errorf("link %q: want rocev2-ipv4, rocev2-ipv6, ib or ib-grh", w.Link)
	}
	switch w.Acks {
	case "", AcksAny, AcksRXE:
	default:
		return fmt.Errorf("ack policy %q: want rxe or any", w.Acks)
	}
	return nil
}
