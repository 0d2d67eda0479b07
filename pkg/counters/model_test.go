package counters

import (
	"strings"
	"testing"
)

func mustExpect(t *testing.T, w Workload) Expectation {
	t.Helper()
	e, err := Expect(w)
	if err != nil {
		t.Fatalf("Expect(%+v): %v", w, err)
	}
	return e
}

// TestExpectBytes checks per-packet sizes computed by hand from the header
// sizes of IBA volume 1 (BTH 12, RETH 16, AETH 4, DETH 8, ImmDt 4,
// AtomicETH 28, AtomicAckETH 8, ICRC 4, LRH 8, GRH 40, VCRC 2) and RoCE v2
// (Ethernet 14, VLAN 4, IPv4 20, IPv6 40, UDP 8, FCS 4, 64-byte minimum
// frame, 20 bytes of preamble, SFD and gap).
func TestExpectBytes(t *testing.T) {
	type layers struct{ packets, transport, packet, netdev, frame, wire uint64 }
	flat := func(f Flow) layers {
		if f.Packets.Min != f.Packets.Max {
			t.Fatalf("flow %+v: want exact counts", f)
		}
		return layers{f.Packets.Min, f.TransportBytes.Min, f.PacketBytes.Min, f.NetdevBytes.Min, f.FrameBytes.Min, f.WireBytes.Min}
	}
	for _, c := range []struct {
		name      string
		w         Workload
		req, resp layers
	}{
		{"RC write 2 B: WRITE ONLY (BTH RETH 2+2 pad ICRC), ACK",
			Workload{Op: OpWrite, Transport: RC, MessageBytes: 2, PathMTUBytes: 4096, Ops: 1, Link: LinkRoCEv2IPv4, Acks: AcksRXE},
			layers{1, 36, 64, 78, 82, 102}, layers{1, 20, 48, 62, 66, 86}},
		{"UC send 0 B: a 62-byte frame padded to 64",
			Workload{Op: OpSend, Transport: UC, MessageBytes: 0, PathMTUBytes: 1024, Ops: 1, Link: LinkRoCEv2IPv4},
			layers{1, 16, 44, 58, 64, 84}, layers{}},
		{"UD send 2048 B over IPv6 with a VLAN tag",
			Workload{Op: OpSend, Transport: UD, MessageBytes: 2048, PathMTUBytes: 4096, Ops: 1, Link: LinkRoCEv2IPv6, VLAN: true},
			layers{1, 2072, 2120, 2138, 2142, 2162}, layers{}},
		{"IB read 10000 B at 4096: request, FIRST 4096, MIDDLE 4096, LAST 1808",
			Workload{Op: OpRead, Transport: RC, MessageBytes: 10000, PathMTUBytes: 4096, Ops: 1, Link: LinkIB},
			layers{1, 32, 40, 0, 42, 0}, layers{3, 4116 + 4112 + 1828, 10056 + 24, 0, 10080 + 6, 0}},
		{"IB with GRH atomic",
			Workload{Op: OpAtomic, Transport: RC, PathMTUBytes: 256, Ops: 2, Link: LinkIBGlobal},
			layers{2, 88, 184, 0, 188, 0}, layers{2, 56, 152, 0, 156, 0}},
		{"RC write with immediate 5000 B at 1024, rxe ACKs",
			Workload{Op: OpWriteImm, Transport: RC, MessageBytes: 5000, PathMTUBytes: 1024, Ops: 1, Link: LinkRoCEv2IPv4, Acks: AcksRXE},
			layers{5, 1056 + 3*1040 + 924, 5100 + 5*28, 5100 + 5*42, 5100 + 5*46, 5100 + 5*66}, layers{1, 20, 48, 62, 66, 86}},
	} {
		e := mustExpect(t, c.w)
		if got := flat(e.Requests); got != c.req {
			t.Errorf("%s: requests %+v, want %+v", c.name, got, c.req)
		}
		if got := flat(e.Responses); got != c.resp {
			t.Errorf("%s: responses %+v, want %+v", c.name, got, c.resp)
		}
	}
}

// TestExpectRXEAcks checks rxe's ACK cadence: one ACK per message and one
// per 66 packets within it, as measured on rxe (6.1) for 256 and 1024
// packets a message and as rxe_req.c's `noack_pkts++ > 64` gives for 66
// and 67.
func TestExpectRXEAcks(t *testing.T) {
	for _, c := range []struct {
		size int64
		mtu  int
		acks uint64
	}{
		{4096, 4096, 1},
		{66 * 1024, 1024, 1},
		{67 * 1024, 1024, 2},
		{1 << 20, 4096, 4},  // measured: 20 x 1 MiB = 5120 + 80 packets
		{1 << 20, 1024, 16}, // measured: 20 x 1 MiB = 20480 + 320 packets
	} {
		for _, op := range []Op{OpWrite, OpSend} {
			e := mustExpect(t, Workload{Op: op, Transport: RC, MessageBytes: c.size, PathMTUBytes: c.mtu, Ops: 3, Link: LinkRoCEv2IPv4, Acks: AcksRXE})
			if want := exact(3 * c.acks); e.Responses.Packets != want {
				t.Errorf("%s %d B at MTU %d: %s ACKs for 3 messages, want %s", op, c.size, c.mtu, e.Responses.Packets, want)
			}
		}
	}
	any := mustExpect(t, Workload{Op: OpWrite, Transport: RC, MessageBytes: 65536, PathMTUBytes: 4096, Ops: 200, Link: LinkRoCEv2IPv4})
	if want := (Range{1, 3200}); any.Responses.Packets != want || any.Workload.Acks != AcksAny {
		t.Errorf("coalescing responder: ACKs %s, want %s", any.Responses.Packets, want)
	}
	if want := (Range{1 * 62, 3200 * 62}); any.Responses.NetdevBytes != want {
		t.Errorf("coalescing responder: ACK bytes %s, want %s", any.Responses.NetdevBytes, want)
	}
	for _, w := range []Workload{
		{Op: OpWrite, Transport: UC, MessageBytes: 65536, PathMTUBytes: 4096, Ops: 200, Link: LinkRoCEv2IPv4},
		{Op: OpRead, Transport: RC, MessageBytes: 65536, PathMTUBytes: 4096, Ops: 200, Link: LinkRoCEv2IPv4},
	} {
		e := mustExpect(t, w)
		if e.Responses.Packets.Min != e.Responses.Packets.Max {
			t.Errorf("%s over %s: responses %s, want an exact count (no ACKs)", w.Op, w.Transport, e.Responses.Packets)
		}
	}
}

func TestExpectErrors(t *testing.T) {
	ok := Workload{Op: OpWrite, Transport: RC, MessageBytes: 8, PathMTUBytes: 1024, Ops: 1, Link: LinkRoCEv2IPv4}
	for _, c := range []struct {
		edit func(*Workload)
		want string
	}{
		{func(w *Workload) { w.Op = "cas" }, `op "cas": want write, write_imm, read, send, send_imm or atomic`},
		{func(w *Workload) { w.Transport = "XRC" }, `transport "XRC": want RC, UC or UD`},
		{func(w *Workload) { w.Transport = UC; w.Op = OpRead }, "UC carries only"},
		{func(w *Workload) { w.Transport = UD }, "UD carries only send and send_imm"},
		{func(w *Workload) { w.PathMTUBytes = 1500 }, "path MTU 1500 bytes: want 256, 512, 1024, 2048 or 4096"},
		{func(w *Workload) { w.MessageBytes = -1 }, "message size -1 bytes"},
		{func(w *Workload) { w.Transport, w.Op, w.MessageBytes = UD, OpSend, 2048 }, "UD message size 2048 bytes: want at most the path MTU (1024)"},
		{func(w *Workload) { w.Op, w.MessageBytes = OpAtomic, 16 }, "atomic message size 16 bytes: want 8"},
		{func(w *Workload) { w.Ops = -5 }, "operation count -5"},
		{func(w *Workload) { w.Link = "" }, `link "": want rocev2-ipv4`},
		{func(w *Workload) { w.Link, w.VLAN = LinkIB, true }, "VLAN tags exist only on RoCE links"},
		{func(w *Workload) { w.Acks = "mlx5" }, `ack policy "mlx5": want rxe or any`},
	} {
		w := ok
		c.edit(&w)
		_, err := Expect(w)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Expect(%+v) error %v, want one containing %q", w, err, c.want)
		}
	}
	if _, err := Expect(ok); err != nil {
		t.Errorf("Expect(%+v): %v", ok, err)
	}
}
