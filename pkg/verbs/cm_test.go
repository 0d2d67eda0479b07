package verbs_test

/* rdma_cm integration tests: they need an RDMA device whose netdev has a
   non-loopback IPv4 address (for example soft-RoCE on a dummy netdev):
   the kernel's rdma_cm cannot route over lo. */

import (
	"bytes"
	"context"
	"errors"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/verbs"
	"github.com/rdma-bench/rdma-bench/pkg/verbs/verbstest"
)

const (
	cmBufSize = 8192
	cmTimeout = 20 * time.Second
)

func cmClose(t *testing.T, c interface{ Close() error }) {
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
}

// cmSide is one end of an rdma_cm connection and the resources its setup
// created on the device rdma_cm chose.
type cmSide struct {
	ctx  *verbs.Context
	pd   *verbs.PD
	cq   *verbs.CQ
	buf  *verbs.Buffer
	mr   *verbs.MR
	conn *verbs.CMConn
}

// setup returns the CMSetup that creates the side's PD, CQ and registered
// buffer, granting access to the peer. It may run on another goroutine:
// it reports failures as errors, and t.Cleanup is safe to call there.
func (s *cmSide) setup(t *testing.T, access verbs.Access) verbs.CMSetup {
	return func(ctx *verbs.Context) (verbs.CMQPConfig, error) {
		s.ctx = ctx
		var err error
		if s.pd, err = ctx.NewPD(); err != nil {
			return verbs.CMQPConfig{}, err
		}
		cmClose(t, s.pd)
		if s.cq, err = ctx.NewCQ(64, false); err != nil {
			return verbs.CMQPConfig{}, err
		}
		cmClose(t, s.cq)
		if s.buf, err = verbs.NewBuffer(cmBufSize); err != nil {
			return verbs.CMQPConfig{}, err
		}
		cmClose(t, s.buf)
		if s.mr, err = s.pd.RegisterMR(s.buf, verbs.AccessLocalWrite|access); err != nil {
			return verbs.CMQPConfig{}, err
		}
		cmClose(t, s.mr)
		return verbs.CMQPConfig{PD: s.pd, SendCQ: s.cq, RecvCQ: s.cq, MaxSendWR: 16, MaxRecvWR: 16}, nil
	}
}

// cmPair listens on the device's address, dials it from the same process
// and returns both connected ends. Cleanup closes the connections before
// the resources their setups created.
func cmPair(t *testing.T, typ verbs.QPType, access verbs.Access) (srv, cli *cmSide, ip netip.Addr, port int) {
	t.Helper()
	dev, ip := verbstest.CMTarget(t)
	l, err := verbs.CMListen(ip.String(), 0, typ)
	if err != nil {
		t.Fatal(err)
	}
	cmClose(t, l)
	if l.Port() == 0 || l.Addr().Addr() != ip {
		t.Fatalf("listener bound to %s, want %s and a port", l.Addr(), ip)
	}
	srv, cli = &cmSide{}, &cmSide{}
	type result struct {
		conn *verbs.CMConn
		err  error
	}
	accepted := make(chan result, 1)
	go func() {
		c, err := l.Accept(context.Background(), cmTimeout, srv.setup(t, access))
		accepted <- result{c, err}
	}()
	start := time.Now()
	cconn, derr := verbs.CMDial(context.Background(), ip.String(), l.Port(), typ, cmTimeout, cli.setup(t, access))
	if cconn != nil {
		cmClose(t, cconn)
	}
	r := <-accepted
	if r.conn != nil {
		cmClose(t, r.conn)
	}
	if derr != nil {
		t.Fatalf("dial: %v", derr)
	}
	if r.err != nil {
		t.Fatalf("accept: %v", r.err)
	}
	t.Logf("%s connection %s -> %s on %s port %d established in %v",
		typ, cconn.LocalAddr(), cconn.RemoteAddr(), cconn.Context().Name(), cconn.Port(), time.Since(start).Round(time.Millisecond))
	srv.conn, cli.conn = r.conn, cconn
	for _, s := range []*cmSide{srv, cli} {
		if s.ctx == nil || s.conn.Context() != s.ctx || s.ctx.Name() != dev {
			t.Fatalf("connection context %v, want the setup's, on %s", s.conn.Context(), dev)
		}
		if s.conn.QP() == nil || s.conn.QP().Type() != typ {
			t.Fatalf("connection qp %v, want a %s qp", s.conn.QP(), typ)
		}
		if st, err := s.conn.QP().State(); err != nil || st != verbs.QPSRTS {
			t.Fatalf("connected qp state %v, %v; want RTS", st, err)
		}
	}
	if got := cconn.RemoteAddr(); got != netip.AddrPortFrom(ip, uint16(l.Port())) {
		t.Errorf("client remote address %s, want %s:%d", got, ip, l.Port())
	}
	if got, want := srv.conn.RemoteAddr(), cconn.LocalAddr(); got != want {
		t.Errorf("server sees the client at %s, the client is at %s", got, want)
	}
	sa, err := srv.conn.Attr()
	if err != nil {
		t.Fatal(err)
	}
	ca, err := cli.conn.Attr()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("client qp %d: %+v", cli.conn.QP().QPN(), ca)
	t.Logf("server qp %d: %+v", srv.conn.QP().QPN(), sa)
	if ca.DestQPN != srv.conn.QP().QPN() || sa.DestQPN != cli.conn.QP().QPN() {
		t.Errorf("dest qpns %d, %d; want %d, %d", ca.DestQPN, sa.DestQPN, srv.conn.QP().QPN(), cli.conn.QP().QPN())
	}
	if ca.SQPSN != sa.RQPSN || sa.SQPSN != ca.RQPSN {
		t.Errorf("psns do not match: client sq %d rq %d, server sq %d rq %d", ca.SQPSN, ca.RQPSN, sa.SQPSN, sa.RQPSN)
	}
	if !ca.PathMTU.Valid() || ca.PathMTU != sa.PathMTU {
		t.Errorf("path mtus %d, %d", ca.PathMTU, sa.PathMTU)
	}
	return srv, cli, ip, l.Port()
}

func cmFill(b []byte, seed byte) {
	for i := range b {
		b[i] = seed + byte(i*13)
	}
}

func cmWait(t *testing.T, cq *verbs.CQ, want verbs.WCOpcode, id uint64) verbs.WC {
	t.Helper()
	wc, err := cq.WaitOne(10 * time.Second)
	if err != nil {
		t.Fatalf("waiting for %s: %v", want, err)
	}
	if wc.Opcode != want || wc.WRID != id {
		t.Fatalf("completion %s wr_id %d, want %s wr_id %d", wc.Opcode, wc.WRID, want, id)
	}
	return wc
}

// cmSend moves n bytes from one side to the other with SEND/RECV and an
// immediate, checking every byte.
func cmSend(t *testing.T, from, to *cmSide, n int, seed byte) {
	t.Helper()
	if err := to.conn.QP().PostRecv(21, to.mr, cmBufSize-n, n); err != nil {
		t.Fatal(err)
	}
	src := from.buf.Bytes()[:n]
	cmFill(src, seed)
	if err := from.conn.QP().PostSend(verbs.SendWR{ID: 20, Op: verbs.OpSendImm, Local: from.mr, Length: n, Imm: 0xc0ffee, Signaled: true}); err != nil {
		t.Fatal(err)
	}
	cmWait(t, from.cq, verbs.WCSend, 20)
	wc := cmWait(t, to.cq, verbs.WCRecv, 21)
	if int(wc.ByteLen) != n || !wc.HasImm || wc.Imm != 0xc0ffee {
		t.Fatalf("recv completion %+v: want %d bytes and imm 0xc0ffee", wc, n)
	}
	if !bytes.Equal(src, to.buf.Bytes()[cmBufSize-n:]) {
		t.Fatal("send/recv: received bytes differ from sent")
	}
}

func TestCMRCWriteReadSend(t *testing.T) {
	srv, cli, _, _ := cmPair(t, verbs.RC, verbs.AccessRemoteWrite|verbs.AccessRemoteRead)
	for _, side := range []*cmSide{srv, cli} {
		a, err := side.conn.Attr()
		if err != nil || a.MaxDestRdAtomic < 1 || a.MaxRdAtomic < 1 || a.Access&verbs.AccessRemoteRead == 0 || a.MinRNRTimer != 12 || a.Timeout != 14 {
			t.Fatalf("qp %+v, %v: want remote read access, read depths, min rnr timer 12 and ack timeout 14", a, err)
		}
	}
	c, s := cli.buf.Bytes(), srv.buf.Bytes()

	// RDMA WRITE client -> server.
	cmFill(c[:4096], 7)
	if err := cli.conn.QP().PostSend(verbs.SendWR{ID: 1, Op: verbs.OpWrite, Local: cli.mr, Length: 4096,
		RemoteAddr: srv.mr.Addr(), RKey: srv.mr.RKey(), Signaled: true}); err != nil {
		t.Fatal(err)
	}
	cmWait(t, cli.cq, verbs.WCRDMAWrite, 1)
	if !bytes.Equal(c[:4096], s[:4096]) {
		t.Fatal("rdma write: target bytes differ from source")
	}

	// RDMA READ server memory into the client.
	cmFill(s[4096:], 99)
	if err := cli.conn.QP().PostSend(verbs.SendWR{ID: 2, Op: verbs.OpRead, Local: cli.mr, Offset: 4096, Length: 4096,
		RemoteAddr: srv.mr.Addr() + 4096, RKey: srv.mr.RKey(), Signaled: true}); err != nil {
		t.Fatal(err)
	}
	cmWait(t, cli.cq, verbs.WCRDMARead, 2)
	if !bytes.Equal(c[4096:], s[4096:]) {
		t.Fatal("rdma read: local bytes differ from remote")
	}

	// SEND/RECV both ways.
	cmSend(t, cli, srv, 4096, 31)
	cmSend(t, srv, cli, 1000, 57)

	// Close disconnects; closing twice (and nil) is harmless.
	for _, side := range []*cmSide{cli, srv} {
		if err := side.conn.Close(); err != nil {
			t.Fatal(err)
		}
		if err := side.conn.Close(); err != nil {
			t.Fatal(err)
		}
	}
	var nilConn *verbs.CMConn
	var nilListener *verbs.CMListener
	if nilConn.Close() != nil || nilListener.Close() != nil {
		t.Fatal("closing nil failed")
	}
}

func TestCMUCWriteSend(t *testing.T) {
	srv, cli, _, _ := cmPair(t, verbs.UC, verbs.AccessRemoteWrite)
	written := cli.buf.Bytes()[:2048]
	cmFill(written, 3)
	want := bytes.Clone(written)
	if err := cli.conn.QP().PostSend(verbs.SendWR{ID: 1, Op: verbs.OpWrite, Local: cli.mr, Length: 2048,
		RemoteAddr: srv.mr.Addr(), RKey: srv.mr.RKey(), Signaled: true}); err != nil {
		t.Fatal(err)
	}
	cmWait(t, cli.cq, verbs.WCRDMAWrite, 1)
	// UC has no acknowledgements: a SEND behind the WRITE tells when
	// the target has the data.
	cmSend(t, cli, srv, 512, 77)
	if !bytes.Equal(want, srv.buf.Bytes()[:2048]) {
		t.Fatal("uc write: target bytes differ from source")
	}
}

func TestCMDialNoListener(t *testing.T) {
	_, ip := verbstest.CMTarget(t)
	// A port nobody listens on: one the kernel just handed out, released.
	l, err := verbs.CMListen(ip.String(), 0, verbs.RC)
	if err != nil {
		t.Fatal(err)
	}
	port := l.Port()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	var side cmSide
	const timeout = 5 * time.Second
	start := time.Now()
	conn, err := verbs.CMDial(context.Background(), ip.String(), port, verbs.RC, timeout, side.setup(t, 0))
	elapsed := time.Since(start)
	if err == nil {
		conn.Close()
		t.Fatalf("dialing %s:%d with no listener succeeded", ip, port)
	}
	t.Logf("after %v: %v", elapsed.Round(time.Millisecond), err)
	if elapsed > timeout+time.Second {
		t.Errorf("dial took %v, timeout %v", elapsed, timeout)
	}
	var ce *verbs.CMEventError
	if !errors.As(err, &ce) || !ce.Rejected() || !strings.Contains(err.Error(), "rejected (no listener?)") {
		t.Fatalf("error %q: want a rejection naming the missing listener", err)
	}
	if want := "rdma_cm connect " + netip.AddrPortFrom(ip, uint16(port)).String(); !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
}

func TestCMSetupFailureRejects(t *testing.T) {
	_, ip := verbstest.CMTarget(t)
	l, err := verbs.CMListen(ip.String(), 0, verbs.RC)
	if err != nil {
		t.Fatal(err)
	}
	cmClose(t, l)
	accepted := make(chan error, 1)
	go func() {
		c, err := l.Accept(context.Background(), cmTimeout, func(*verbs.Context) (verbs.CMQPConfig, error) {
			return verbs.CMQPConfig{}, errors.New("no memory for you")
		})
		if c != nil {
			c.Close()
		}
		accepted <- err
	}()
	var side cmSide
	conn, err := verbs.CMDial(context.Background(), ip.String(), l.Port(), verbs.RC, cmTimeout, side.setup(t, 0))
	if err == nil {
		conn.Close()
	}
	aerr := <-accepted
	if aerr == nil || !strings.Contains(aerr.Error(), "no memory for you") {
		t.Errorf("accept: %v; want the setup's error", aerr)
	}
	if err == nil || !strings.Contains(err.Error(), "rejected by the peer") {
		t.Fatalf("dial: %v; want a rejection by the peer", err)
	}
	t.Logf("accept: %v", aerr)
	t.Logf("dial: %v", err)
}

func TestCMAcceptTimeout(t *testing.T) {
	_, ip := verbstest.CMTarget(t)
	l, err := verbs.CMListen(ip.String(), 0, verbs.RC)
	if err != nil {
		t.Fatal(err)
	}
	cmClose(t, l)
	start := time.Now()
	c, err := l.Accept(context.Background(), 300*time.Millisecond, nil)
	if err == nil {
		c.Close()
		t.Fatal("accept without a client succeeded")
	}
	if !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("accept after %v: %v; want a deadline error after 300ms", time.Since(start), err)
	}
}
