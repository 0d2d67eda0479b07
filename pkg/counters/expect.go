package counters

// rxePacketsPerAck is how many packets of one message rxe sends between
// AckReq bits: RXE_MAX_PKT_PER_ACK (64) + 2, from `noack_pkts++ > 64`
// with the counter reset to 0 on every AckReq.
const rxePacketsPerAck = 66

// Expect computes the packets and bytes a workload puts on the wire in each
// direction, RC acknowledgements included: exact counts where the ack
// policy is known (AcksRXE), a range where the responder may coalesce.
func Expect(w Workload) (Expectation, error) {
	if err := w.validate(); err != nil {
		return Expectation{}, err
	}
	if w.Acks == "" {
		w.Acks = AcksAny
	}
	if w.Op == OpAtomic {
		w.MessageBytes = 8
	}
	ops := uint64(w.Ops)
	req, resp := w.perOp()
	e := Expectation{Workload: w}
	e.Requests = w.flow(req, ops)
	e.Responses = w.flow(resp, ops)

	var reqPackets, respPackets uint64
	for _, g := range req {
		reqPackets += g.n
	}
	for _, g := range resp {
		respPackets += g.n
	}
	if w.Transport == RC && (w.Op == OpWrite || w.Op == OpWriteImm || w.Op == OpSend || w.Op == OpSendImm) {
		acks := Range{Min: min(ops, 1), Max: satMul(ops, reqPackets)}
		if w.Acks == AcksRXE {
			n := satMul(ops, 1+(reqPackets-1)/rxePacketsPerAck)
			acks = Range{n, n}
		}
		e.Responses = e.Responses.add(w.ackFlow(acks))
	}
	switch w.Op {
	case OpSend, OpSendImm:
		e.SendCompletions, e.RecvCompletions = ops, ops
	case OpWriteImm:
		e.RecvCompletions = ops
	}
	e.PacketsPerRetransmission = 1 + max(1, respPackets)
	return e, nil
}

// flow totals ops operations of the given packet groups.
func (w Workload) flow(gs []group, ops uint64) Flow {
	var f Flow
	for _, g := range gs {
		n := satMul(ops, g.n)
		s := w.layers(g.transport())
		f = f.add(Flow{
			Packets:        Range{n, n},
			TransportBytes: exact(satMul(n, s.transport)),
			PacketBytes:    exact(satMul(n, s.packet)),
			NetdevBytes:    exact(satMul(n, s.netdev)),
			FrameBytes:     exact(satMul(n, s.frame)),
			WireBytes:      exact(satMul(n, s.wire)),
			largest:        s,
		})
	}
	return f
}

// ackFlow is a range of plain ACK packets (BTH and AETH).
func (w Workload) ackFlow(n Range) Flow {
	s := w.layers(group{1, bthBytes + aethBytes, 0}.transport())
	scale := func(b uint64) Range { return Range{satMul(n.Min, b), satMul(n.Max, b)} }
	return Flow{
		Packets:        n,
		TransportBytes: scale(s.transport),
		PacketBytes:    scale(s.packet),
		NetdevBytes:    scale(s.netdev),
		FrameBytes:     scale(s.frame),
		WireBytes:      scale(s.wire),
		largest:        s,
	}
}

func exact(v uint64) Range { return Range{v, v} }
