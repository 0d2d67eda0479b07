package counters

import (
	"strings"
	"testing"
	"time"
)

// OK reports whether some figure was checked and none disagrees or is
// unusable: the tests' verdict on a check (the binary prints the
// findings, String).
func (r WireCheck) OK() bool {
	for _, f := range r.Findings {
		if f.Status == StatusDisagrees || f.Status == StatusUnusable {
			return false
		}
	}
	return len(r.Findings) > 0
}

// rxeDeltas builds the deltas of an rxe port whose counters moved by the
// given amounts (others by 0), read over netlink and sysfs.
func rxeDeltas(t *testing.T, moved map[string]uint64) Deltas {
	t.Helper()
	var before, after []Counter
	for _, src := range []Source{SourceNetlink, SourcePortHW} {
		for _, name := range rxeNames {
			before = append(before, Counter{src, name, 1000})
			after = append(after, Counter{src, name, 1000 + moved[name]})
		}
	}
	d, err := Diff(snap(stamp, before...), snap(stamp.Add(time.Second), after...))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestCheckRXELoopback replays loopback perftest runs measured on rxe0
// (Debian 12 VM, kernel 6.1.0-56, QEMU TCG): clean ones match the model
// exactly; the others exceed it by what their duplicate and retry
// counters explain (each duplicate cost the resent request and its ACK).
func TestCheckRXELoopback(t *testing.T) {
	roce := func(op Op, tr Transport, size int64, mtu int, ops int64) Workload {
		return Workload{Op: op, Transport: tr, MessageBytes: size, PathMTUBytes: mtu, Ops: ops, Link: LinkRoCEv2IPv4, Acks: AcksRXE}
	}
	for _, c := range []struct {
		name   string
		w      Workload
		moved  map[string]uint64
		status Status
	}{
		{"ib_read_bw -n 200 -s 65536", roce(OpRead, RC, 65536, 4096, 200),
			map[string]uint64{"sent_pkts": 3400, "rcvd_pkts": 3400}, StatusWithin},
		{"ib_atomic_bw -n 200", roce(OpAtomic, RC, 8, 4096, 200),
			map[string]uint64{"sent_pkts": 400, "rcvd_pkts": 400}, StatusWithin},
		{"ib_write_bw -c UC -n 200 -s 65536", roce(OpWrite, UC, 65536, 4096, 200),
			map[string]uint64{"sent_pkts": 3200, "rcvd_pkts": 3200}, StatusWithin},
		{"ib_send_bw -c UD -n 200 -s 2048", roce(OpSend, UD, 2048, 4096, 200),
			map[string]uint64{"sent_pkts": 200, "rcvd_pkts": 200, "rdma_sends": 200, "rdma_recvs": 200}, StatusWithin},
		{"rdma-bench send_bw -c UD -n 2000 -s 1K (the receiver found no receive posted for 1588)", roce(OpSend, UD, 1024, 4096, 2100),
			map[string]uint64{"sent_pkts": 2100, "rcvd_pkts": 2100, "rdma_sends": 2100, "rdma_recvs": 512}, StatusWithin},
		{"ib_write_lat -n 200 -s 2 (both sides write)", roce(OpWrite, RC, 2, 4096, 400),
			map[string]uint64{"sent_pkts": 800, "rcvd_pkts": 800}, StatusWithin},
		{"ib_send_lat -n 200 -s 2", roce(OpSend, RC, 2, 4096, 400),
			map[string]uint64{"sent_pkts": 800, "rcvd_pkts": 800, "rdma_sends": 400, "rdma_recvs": 400}, StatusWithin},
		{"ib_write_bw -n 200 -s 1", roce(OpWrite, RC, 1, 4096, 200),
			map[string]uint64{"sent_pkts": 400, "rcvd_pkts": 400}, StatusWithin},
		{"ib_write_bw -n 200 -s 65536", roce(OpWrite, RC, 65536, 4096, 200),
			map[string]uint64{"sent_pkts": 3406, "rcvd_pkts": 3406, "duplicate_request": 3, "completer_retry_err": 2}, StatusExplained},
		{"ib_write_bw -n 20 -s 1048576", roce(OpWrite, RC, 1<<20, 4096, 20),
			map[string]uint64{"sent_pkts": 5484, "rcvd_pkts": 5484, "duplicate_request": 141, "completer_retry_err": 4}, StatusExplained},
		{"ib_write_bw -n 20 -s 1048576 -m 1024", roce(OpWrite, RC, 1<<20, 1024, 20),
			map[string]uint64{"sent_pkts": 21110, "rcvd_pkts": 21110, "duplicate_request": 155, "completer_retry_err": 7}, StatusExplained},
		{"ib_send_bw -n 200 -s 65536", roce(OpSend, RC, 65536, 4096, 200),
			map[string]uint64{"sent_pkts": 3442, "rcvd_pkts": 3442, "duplicate_request": 21, "completer_retry_err": 2, "rdma_sends": 200, "rdma_recvs": 200}, StatusExplained},
	} {
		e := mustExpect(t, c.w)
		r, err := e.Check(RoleLoopback, rxeDeltas(t, c.moved))
		if err != nil {
			t.Fatal(err)
		}
		if !r.OK() {
			t.Errorf("%s: %s", c.name, r)
			continue
		}
		for _, f := range r.Findings {
			if f.Counter != "netlink/"+map[string]string{"tx_packets": "sent_pkts", "rx_packets": "rcvd_pkts",
				"send_completions": "rdma_sends", "recv_completions": "rdma_recvs"}[f.Figure] {
				t.Errorf("%s: finding %+v read from the wrong counter", c.name, f)
			}
			if want := c.status; f.Figure == "send_completions" || f.Figure == "recv_completions" {
				if f.Status != StatusWithin {
					t.Errorf("%s: %+v, want completions exact", c.name, f)
				}
			} else if f.Status != want {
				t.Errorf("%s: %s %s, want %s", c.name, f.Figure, f.Status, want)
			}
		}
		if len(r.Findings) != 4 {
			t.Errorf("%s: %d findings, want tx and rx packets, send and receive completions", c.name, len(r.Findings))
		}
	}
}

func TestCheckDisagrees(t *testing.T) {
	e := mustExpect(t, Workload{Op: OpWrite, Transport: RC, MessageBytes: 65536, PathMTUBytes: 4096, Ops: 200, Link: LinkRoCEv2IPv4, Acks: AcksRXE})
	// Clean, but 6 packets too many: nothing explains them.
	r, _ := e.Check(RoleLoopback, rxeDeltas(t, map[string]uint64{"sent_pkts": 3406, "rcvd_pkts": 3400}))
	if r.OK() || !strings.Contains(r.String(), "tx_packets: netlink/sent_pkts measured 3406, expected 3400") {
		t.Errorf("report %q, want tx_packets disagreeing", r)
	}
	// Far more than 3 duplicates and 2 retries explain.
	r, _ = e.Check(RoleLoopback, rxeDeltas(t, map[string]uint64{"sent_pkts": 3500, "rcvd_pkts": 3500, "duplicate_request": 3, "completer_retry_err": 2}))
	if r.OK() || !strings.Contains(r.String(), "(+10 for retransmissions)") {
		t.Errorf("report %q, want a disagreement beyond the allowance of 10", r)
	}
	// Too few packets is never explained.
	r, _ = e.Check(RoleLoopback, rxeDeltas(t, map[string]uint64{"sent_pkts": 3000, "rcvd_pkts": 3000, "duplicate_request": 3}))
	if r.OK() {
		t.Errorf("report %q, want a disagreement", r)
	}
	if _, err := e.Check("both", Deltas{}); err == nil || !strings.Contains(err.Error(), "want requester, responder or loopback") {
		t.Errorf("bad role: error %v", err)
	}
	if r, _ := e.Check(RoleRequester, Deltas{}); r.OK() || r.String() != "no counter to check against the wire model" {
		t.Errorf("no counters: %q", r)
	}
}

// TestCheckTwoSides checks a requester and a responder port of an IB link
// (PMA counters, bytes from the LRH to the ICRC), with a hardware responder
// that coalesces ACKs.
func TestCheckTwoSides(t *testing.T) {
	e := mustExpect(t, Workload{Op: OpWrite, Transport: RC, MessageBytes: 8192, PathMTUBytes: 4096, Ops: 100, Link: LinkIB})
	// 200 request packets of 4096 payload: 4096+12+4+8 (+16 RETH on the first).
	reqBytes := uint64(200*(4096+24) + 100*16)
	pma := func(xmitPkts, rcvPkts, xmitBytes, rcvBytes uint64) Deltas {
		b := snap(stamp, Counter{SourcePort, "port_xmit_packets", 0}, Counter{SourcePort, "port_rcv_packets", 0},
			Counter{SourcePort, "port_xmit_data", 0}, Counter{SourcePort, "port_rcv_data", 0})
		a := snap(stamp, Counter{SourcePort, "port_xmit_packets", xmitPkts}, Counter{SourcePort, "port_rcv_packets", rcvPkts},
			Counter{SourcePort, "port_xmit_data", xmitBytes / 4}, Counter{SourcePort, "port_rcv_data", rcvBytes / 4})
		d, err := Diff(b, a)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	const acks = 50 // coalesced: one ACK per two messages, 24 bytes each (LRH BTH AETH ICRC)
	req := pma(200, acks, reqBytes, acks*24)
	resp := pma(acks, 200, acks*24, reqBytes)
	for role, sides := range map[Role][2]Deltas{RoleRequester: {req, resp}, RoleResponder: {resp, req}} {
		r, err := e.Check(role, sides[0], sides[1])
		if err != nil {
			t.Fatal(err)
		}
		if !r.OK() || len(r.Findings) != 4 {
			t.Errorf("%s: %s (%d findings)", role, r, len(r.Findings))
		}
	}
	// A responder that sent 250 ACKs for 200 request packets is wrong.
	bad := pma(250, 200, 250*24, reqBytes)
	if r, _ := e.Check(RoleResponder, bad); r.OK() {
		t.Errorf("250 ACKs for 200 packets: %s, want a disagreement", r)
	}
}

// TestCheckVeth replays runs measured between two rxe devices on a veth
// pair (rxea on veth0 requesting, rxeb on veth1 responding; perftest's TCP
// over lo, IPv6 off, so the veths carried only RDMA): each side's rxe
// counters pass Check in its role, and the veths' tx_bytes equal the
// model's netdev bytes (Ethernet header through ICRC) exactly.
func TestCheckVeth(t *testing.T) {
	roce := func(op Op, tr Transport, size int64, mtu int) Workload {
		return Workload{Op: op, Transport: tr, MessageBytes: size, PathMTUBytes: mtu, Ops: 100, Link: LinkRoCEv2IPv4, Acks: AcksRXE}
	}
	for _, c := range []struct {
		name                   string
		w                      Workload
		reqPkts, respPkts      uint64 // rxea sent_pkts, rxeb sent_pkts
		veth0Bytes, veth1Bytes uint64 // tx_bytes
		sends, recvs           uint64
	}{
		{"ib_write_bw -n 200 -s 2", roce(OpWrite, RC, 2, 4096).times(200), 200, 200, 15600, 12400, 0, 0},
		{"ib_write_bw -n 100 -s 8192 -m 1024", roce(OpWrite, RC, 8192, 1024), 800, 100, 867200, 6200, 0, 0},
		{"ib_read_bw -n 100 -s 8192 -m 1024", roce(OpRead, RC, 8192, 1024), 100, 800, 7400, 866400, 0, 0},
		{"ib_send_bw -n 100 -s 100", roce(OpSend, RC, 100, 4096), 100, 100, 15800, 6200, 100, 100},
		{"ib_send_bw -c UD -n 100 -s 1000 -m 1024", roce(OpSend, UD, 1000, 1024), 100, 0, 106600, 0, 100, 100},
		{"ib_atomic_bw -n 100", roce(OpAtomic, RC, 8, 4096), 100, 100, 8600, 7000, 0, 0},
	} {
		e := mustExpect(t, c.w)
		if got := e.Requests.NetdevBytes; got != exact(c.veth0Bytes) {
			t.Errorf("%s: requests %s netdev bytes, veth0 sent %d", c.name, got, c.veth0Bytes)
		}
		if got := e.Responses.NetdevBytes; got != exact(c.veth1Bytes) {
			t.Errorf("%s: responses %s netdev bytes, veth1 sent %d", c.name, got, c.veth1Bytes)
		}
		req := rxeDeltas(t, map[string]uint64{"sent_pkts": c.reqPkts, "rcvd_pkts": c.respPkts, "rdma_sends": c.sends})
		resp := rxeDeltas(t, map[string]uint64{"sent_pkts": c.respPkts, "rcvd_pkts": c.reqPkts, "rdma_recvs": c.recvs})
		for role, sides := range map[Role][2]Deltas{RoleRequester: {req, resp}, RoleResponder: {resp, req}} {
			r, err := e.Check(role, sides[0], sides[1])
			if err != nil {
				t.Fatal(err)
			}
			if !r.OK() || len(r.Findings) != 3 {
				t.Errorf("%s as %s: %s (%d findings)", c.name, role, r, len(r.Findings))
			}
		}
	}
}

// times sets the operation count.
func (w Workload) times(ops int64) Workload {
	w.Ops = ops
	return w
}
