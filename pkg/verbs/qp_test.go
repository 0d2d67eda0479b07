package verbs_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

const bufSize = 8192

// side is one end of a loopback connection: its own CQ, QP and memory.
type side struct {
	cq  *verbs.CQ
	qp  *verbs.QP
	buf *verbs.Buffer
	mr  *verbs.MR
}

// pair holds two QPs of one type on one device, connected to each other.
type pair struct {
	ctx  *verbs.Context
	pd   *verbs.PD
	path verbs.Path
	gid  verbs.GIDEntry
	a, b side
	// ahAB and ahBA address the other side for UD.
	ahAB, ahBA *verbs.AH
}

func closeLater(t *testing.T, c interface{ Close() error }) {
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
}

// newPair creates and connects two QPs of type typ on the test device.
func newPair(t *testing.T, typ verbs.QPType, events bool, access verbs.Access) *pair {
	t.Helper()
	p := &pair{ctx: openDevice(t)}
	pa, err := p.ctx.ActivePort(1)
	if err != nil {
		t.Fatal(err)
	}
	table, err := p.ctx.GIDTable(1)
	if err != nil {
		t.Fatal(err)
	}
	if p.gid, err = verbs.SelectGID(table, -1); err != nil {
		t.Fatal(err)
	}
	if p.pd, err = p.ctx.NewPD(); err != nil {
		t.Fatal(err)
	}
	closeLater(t, p.pd)
	p.path = verbs.Path{Port: 1, GIDIndex: p.gid.Index, Global: pa.LinkLayer == verbs.LinkEthernet, MTU: pa.ActiveMTU, MaxRdAtomic: 1}
	if typ == verbs.UD {
		// UD payloads are at most the MTU.
		p.path.MTU = min(pa.ActiveMTU, 1024)
	}
	for _, s := range []*side{&p.a, &p.b} {
		if s.cq, err = p.ctx.NewCQ(64, events); err != nil {
			t.Fatal(err)
		}
		if s.buf, err = verbs.NewBuffer(bufSize); err != nil {
			t.Fatal(err)
		}
		if s.mr, err = p.pd.RegisterMR(s.buf, access|verbs.AccessLocalWrite); err != nil {
			t.Fatal(err)
		}
		if s.qp, err = p.pd.NewQP(verbs.QPSpec{Type: typ, SendCQ: s.cq, RecvCQ: s.cq, MaxSendWR: 16, MaxRecvWR: 16}); err != nil {
			t.Fatal(err)
		}
		// Cleanup runs last-in first-out: QP before MR before CQ.
		closeLater(t, s.cq)
		closeLater(t, s.buf)
		closeLater(t, s.mr)
		closeLater(t, s.qp)
	}
	if st, err := p.a.qp.State(); err != nil || st != verbs.QPSReset {
		t.Fatalf("new qp state %v, %v; want RESET", st, err)
	}
	ra := verbs.Remote{QPN: p.a.qp.QPN(), PSN: 0x1234, LID: pa.LID, GID: p.gid.GID}
	rb := verbs.Remote{QPN: p.b.qp.QPN(), PSN: 0x5678, LID: pa.LID, GID: p.gid.GID}
	if err := p.a.qp.Connect(p.path, access, ra.PSN, rb); err != nil {
		t.Fatal(err)
	}
	if err := p.b.qp.Connect(p.path, access, rb.PSN, ra); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*side{&p.a, &p.b} {
		if st, err := s.qp.State(); err != nil || st != verbs.QPSRTS {
			t.Fatalf("connected qp state %v, %v; want RTS", st, err)
		}
	}
	if typ == verbs.UD {
		if p.ahAB, err = p.pd.NewAH(p.path, rb); err != nil {
			t.Fatal(err)
		}
		closeLater(t, p.ahAB)
		if p.ahBA, err = p.pd.NewAH(p.path, ra); err != nil {
			t.Fatal(err)
		}
		closeLater(t, p.ahBA)
	}
	return p
}

func fill(b []byte, seed byte) {
	for i := range b {
		b[i] = seed + byte(i*7)
	}
}

func wait(t *testing.T, cq *verbs.CQ, want verbs.WCOpcode) verbs.WC {
	t.Helper()
	wc, err := cq.WaitOne(10 * time.Second)
	if err != nil {
		t.Fatalf("waiting for %s: %v", want, err)
	}
	if wc.Opcode != want {
		t.Fatalf("completion opcode %s, want %s", wc.Opcode, want)
	}
	return wc
}

func TestRCWriteReadAtomics(t *testing.T) {
	for _, events := range []bool{false, true} {
		t.Run(map[bool]string{false: "poll", true: "event"}[events], func(t *testing.T) {
			p := newPair(t, verbs.RC, events, verbs.AccessRemoteWrite|verbs.AccessRemoteRead|verbs.AccessRemoteAtomic)
			a, b := p.a.buf.Bytes(), p.b.buf.Bytes()

			// WRITE a -> b, every byte checked.
			fill(a[:4096], 3)
			if err := p.a.qp.PostSend(verbs.SendWR{ID: 1, Op: verbs.OpWrite, Local: p.a.mr, Length: 4096,
				RemoteAddr: p.b.mr.Addr(), RKey: p.b.mr.RKey(), Signaled: true}); err != nil {
				t.Fatal(err)
			}
			if wc := wait(t, p.a.cq, verbs.WCRDMAWrite); wc.WRID != 1 {
				t.Fatalf("wr_id %d", wc.WRID)
			}
			if !bytes.Equal(a[:4096], b[:4096]) {
				t.Fatal("rdma write: target bytes differ from source")
			}

			// READ b[4096:] into a[4096:].
			fill(b[4096:], 91)
			if err := p.a.qp.PostSend(verbs.SendWR{ID: 2, Op: verbs.OpRead, Local: p.a.mr, Offset: 4096, Length: 4096,
				RemoteAddr: p.b.mr.Addr() + 4096, RKey: p.b.mr.RKey(), Signaled: true}); err != nil {
				t.Fatal(err)
			}
			wait(t, p.a.cq, verbs.WCRDMARead)
			if !bytes.Equal(a[4096:], b[4096:]) {
				t.Fatal("rdma read: local bytes differ from remote")
			}

			// Fetch-and-add then compare-and-swap on b[0:8].
			binary.LittleEndian.PutUint64(b[:8], 100)
			if err := p.a.qp.PostSend(verbs.SendWR{ID: 3, Op: verbs.OpFetchAdd, Local: p.a.mr, Offset: 16, Length: 8,
				RemoteAddr: p.b.mr.Addr(), RKey: p.b.mr.RKey(), CompareAdd: 5, Signaled: true}); err != nil {
				t.Fatal(err)
			}
			wait(t, p.a.cq, verbs.WCFetchAdd)
			if old, now := binary.LittleEndian.Uint64(a[16:24]), binary.LittleEndian.Uint64(b[:8]); old != 100 || now != 105 {
				t.Fatalf("fetch and add: returned %d (want 100), target %d (want 105)", old, now)
			}
			if err := p.a.qp.PostSend(verbs.SendWR{ID: 4, Op: verbs.OpCompSwap, Local: p.a.mr, Offset: 24, Length: 8,
				RemoteAddr: p.b.mr.Addr(), RKey: p.b.mr.RKey(), CompareAdd: 105, Swap: 7, Signaled: true}); err != nil {
				t.Fatal(err)
			}
			wait(t, p.a.cq, verbs.WCCompSwap)
			if old, now := binary.LittleEndian.Uint64(a[24:32]), binary.LittleEndian.Uint64(b[:8]); old != 105 || now != 7 {
				t.Fatalf("compare and swap: returned %d (want 105), target %d (want 7)", old, now)
			}
		})
	}
}

// testSend moves one message a -> b with SEND/RECV (and an immediate).
func testSend(t *testing.T, p *pair, n int, grh int) {
	t.Helper()
	// UD receives start with a 40-byte GRH.
	if err := p.b.qp.PostRecv(9, p.b.mr, 0, n+grh); err != nil {
		t.Fatal(err)
	}
	a, b := p.a.buf.Bytes(), p.b.buf.Bytes()
	fill(a[:n], 42)
	wr := verbs.SendWR{ID: 8, Op: verbs.OpSendImm, Local: p.a.mr, Length: n, Imm: 0xdeadbeef, Signaled: true}
	if p.ahAB != nil {
		wr.AH, wr.RemoteQPN = p.ahAB, p.b.qp.QPN()
	}
	if err := p.a.qp.PostSend(wr); err != nil {
		t.Fatal(err)
	}
	wait(t, p.a.cq, verbs.WCSend)
	wc := wait(t, p.b.cq, verbs.WCRecv)
	if wc.WRID != 9 || int(wc.ByteLen) != n+grh || !wc.HasImm || wc.Imm != 0xdeadbeef {
		t.Fatalf("recv completion %+v: want wr_id 9, %d bytes, imm 0xdeadbeef", wc, n+grh)
	}
	if !bytes.Equal(a[:n], b[grh:grh+n]) {
		t.Fatal("send/recv: received bytes differ from sent")
	}
}

func TestRCSend(t *testing.T) {
	testSend(t, newPair(t, verbs.RC, false, 0), 4096, 0)
}

func TestUCWriteAndSend(t *testing.T) {
	p := newPair(t, verbs.UC, true, verbs.AccessRemoteWrite)
	fill(p.a.buf.Bytes()[:2048], 17)
	// Write with immediate consumes a receive on the target; UC drops a
	// message that finds none, so it is posted first.
	if err := p.b.qp.PostRecv(5, p.b.mr, 4096, 0); err != nil {
		t.Fatal(err)
	}
	if err := p.a.qp.PostSend(verbs.SendWR{ID: 1, Op: verbs.OpWriteImm, Local: p.a.mr, Length: 2048, Imm: 77,
		RemoteAddr: p.b.mr.Addr(), RKey: p.b.mr.RKey(), Signaled: true}); err != nil {
		t.Fatal(err)
	}
	wait(t, p.a.cq, verbs.WCRDMAWrite)
	if wc := wait(t, p.b.cq, verbs.WCRecvRDMAImm); wc.Imm != 77 {
		t.Fatalf("imm %d, want 77", wc.Imm)
	}
	if !bytes.Equal(p.a.buf.Bytes()[:2048], p.b.buf.Bytes()[:2048]) {
		t.Fatal("uc write: target bytes differ")
	}
	testSend(t, p, 1000, 0)
}

func TestUDSend(t *testing.T) {
	p := newPair(t, verbs.UD, false, 0)
	testSend(t, p, int(p.path.MTU), 40)
}

func TestRemoteAccessErrorIsTyped(t *testing.T) {
	// A write with a key the target never handed out must fail with a
	// typed, readable work-completion error.
	p := newPair(t, verbs.RC, false, verbs.AccessRemoteWrite)
	if err := p.a.qp.PostSend(verbs.SendWR{ID: 11, Op: verbs.OpWrite, Local: p.a.mr, Length: 64,
		RemoteAddr: p.b.mr.Addr(), RKey: p.b.mr.RKey() ^ 0x5a5a00, Signaled: true}); err != nil {
		t.Fatal(err)
	}
	_, err := p.a.cq.WaitOne(10 * time.Second)
	var wce *verbs.WCError
	if !errors.As(err, &wce) || wce.Status != verbs.WCRemAccessErr || wce.WRID != 11 {
		t.Fatalf("write without remote write access: %v; want remote access error for wr_id 11", err)
	}
}
