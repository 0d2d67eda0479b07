package workloads

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/engine"
	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// cmTimeout bounds each rdma_cm connection: the idle timeout, at most
// 10 s (the peer may be slow to accept a whole list of QPs).
func (n *rdmaSide) cmTimeout() time.Duration { return min(n.s.local.IdleTimeout, 10*time.Second) }

// endpoints describes this side's QPs for the peer, in order.
func (n *rdmaSide) endpoints() exchange.Endpoints {
	var e exchange.Endpoints
	for _, wk := range n.ws {
		for _, q := range wk.qps {
			qpn := uint32(0) // rdma_cm creates and numbers the QP later
			if q.qp != nil {
				qpn = q.qp.QPN()
			}
			e.QPs = append(e.QPs, exchange.Endpoint{
				QPN: qpn, PSN: q.psn, GID: exchange.GID(n.gid.GID), LID: n.port.LID,
				MTU: n.s.local.pathMTU(int(n.port.ActiveMTU)), Addr: q.tmr.Addr(),
				RKey: q.tmr.RKey(), Len: uint64(q.region), MGID: q.mgid(),
			})
		}
	}
	return e
}

// connect brings every QP to RTS towards its peer (through rdma_cm with
// --rdma-cm), builds the engines, patterns the memory and posts receives.
func (n *rdmaSide) connect(ctx context.Context, peer exchange.Endpoints) error {
	n.peer = peer
	total := 0
	for _, wk := range n.ws {
		total += len(wk.qps)
	}
	if len(peer.QPs) != total {
		return fmt.Errorf("peer has %d queue pairs, this side %d", len(peer.QPs), total)
	}
	if n.s.spec.RDMACM {
		if err := n.cmConnect(ctx, verbs.GID(peer.QPs[0].GID)); err != nil {
			return err
		}
	}
	k := 0
	for i, wk := range n.ws {
		spec := n.engineSpec(i, wk)
		for _, q := range wk.qps {
			eq, err := n.connectQP(q, peer.QPs[k], k)
			if err != nil {
				return err
			}
			k++
			spec.QPs = append(spec.QPs, eq)
		}
		eng, err := engine.New(spec)
		if err != nil {
			return err
		}
		wk.eng = eng
	}
	n.fillPatterns()
	for i, wk := range n.ws {
		if !n.s.planOf(i).postRecvs {
			continue
		}
		if err := wk.eng.PostReceives(); err != nil {
			return err
		}
	}
	return nil
}

// connectQP connects one QP to its peer (unless rdma_cm did) and describes
// it for the engine.
func (n *rdmaSide) connectQP(q *qpRes, pe exchange.Endpoint, k int) (engine.QP, error) {
	l := n.s.local
	if pe.Len < uint64(n.s.spec.Size) {
		return engine.QP{}, fmt.Errorf("peer buffer of %d bytes is smaller than the message size %d", pe.Len, n.s.spec.Size)
	}
	path := verbs.Path{Port: l.IBPort, GIDIndex: n.gid.Index, Global: n.port.LinkLayer == verbs.LinkEthernet,
		MTU: verbs.MTU(min(l.pathMTU(int(n.port.ActiveMTU)), pe.MTU)), SL: l.SL, TrafficClass: l.TClass,
		MaxRdAtomic: min(max(n.limits.MaxRdAtom, 1), 16)}
	remote := verbs.Remote{QPN: pe.QPN, PSN: pe.PSN, LID: pe.LID, GID: verbs.GID(pe.GID)}
	if q.cm == nil {
		if err := q.qp.Connect(path, n.remoteAccess(), q.psn, remote); err != nil {
			return engine.QP{}, err
		}
	}
	eq := engine.QP{QP: q.qp, Local: q.lmr, RemoteAddr: pe.Addr, RKey: pe.RKey,
		Recv: q.tmr, RecvLen: q.region / n.s.spec.Slots()}
	if n.s.spec.Transport == "UD" {
		if err := n.joinGroup(q); err != nil {
			return engine.QP{}, err
		}
		path, remote, err := n.mcastTarget(path, remote, pe, k)
		if err != nil {
			return engine.QP{}, err
		}
		ah, err := n.pd.NewAH(path, remote)
		if err != nil {
			return engine.QP{}, err
		}
		q.ah = ah
		eq.AH, eq.RemoteQPN = ah, remote.QPN
	}
	return eq, nil
}

// engineSpec is the engine configuration shared by worker i's QPs. A
// rate is shared out among the workers.
func (n *rdmaSide) engineSpec(i int, wk *rdmaWorker) engine.Spec {
	c := n.s.spec
	// Loaders (--loaders) stream unlimited.
	rate, nw := 0, c.ThreadCount()
	if i < nw {
		rate = c.Rate / nw
		if i < c.Rate%nw {
			rate++
		}
	}
	s := engine.Spec{Size: c.Size, TxDepth: c.TxDepth, RxDepth: c.RxDepth, CQMod: c.CQMod,
		PostList: c.PostsPerCall(), InlineSize: n.inline, CQ: wk.cq, Events: c.Events, IdleTimeout: n.s.local.IdleTimeout,
		Slots: c.Slots(), Rate: uint64(rate), SRQ: wk.srq}
	s.Stride = wk.qps[0].region / s.Slots
	switch n.s.w.Op {
	case catalog.OpWrite:
		s.Verb = engine.Write
		if c.Imm {
			s.Verb = engine.WriteImm
		}
	case catalog.OpRead:
		s.Verb = engine.Read
	case catalog.OpSend:
		s.Verb = engine.Send
	case catalog.OpAtomic:
		s.Verb = engine.FetchAdd
		s.CompareAdd = 1
		if c.Atomic == "cswap" {
			s.Verb, s.CompareAdd, s.Swap = engine.CompSwap, 0, 1
		}
	}
	return s
}

// With --rdma-cm, rdma_cm connects the queue pairs (like perftest's -R):
// the server listens on its RoCE address at the exchange's port number
// (rdma_cm's port space is its own), the client dials the address of the
// server's GID, once per QP, in order. Buffer addresses and keys still
// travel over the exchange.

// cmListen starts the server's rdma_cm listener.
func (n *rdmaSide) cmListen() (*verbs.CMListener, error) {
	ip, err := cmAddress(n.gid.GID, "this side's")
	if err != nil {
		return nil, err
	}
	typ, _ := verbs.ParseQPType(n.s.spec.Transport)
	return verbs.CMListen(ip, n.s.cmPort, typ)
}

// cmAddress is the IPv4 address of a RoCE GID for rdma_cm, which cannot
// route over a loopback interface: refused at once, not after a timeout.
func cmAddress(g verbs.GID, whose string) (string, error) {
	ip, ok := g.IPv4()
	if !ok {
		return "", fmt.Errorf("--rdma-cm needs an IPv4 RoCE GID: %s GID is %s", whose, g)
	}
	if strings.HasPrefix(ip, "127.") {
		return "", fmt.Errorf("--rdma-cm cannot route to %s (%s GID, on a loopback interface): put the RDMA device on a routable netdev (a NIC or a dummy interface), or drop --rdma-cm", ip, whose)
	}
	return ip, nil
}

// cmSetup hands rdma_cm the worker's PD, CQ and queue sizes for one QP.
func (n *rdmaSide) cmSetup(wk *rdmaWorker) verbs.CMSetup {
	return func(c *verbs.Context) (verbs.CMQPConfig, error) {
		if got, want := c.Name(), n.ctx.Name(); got != want {
			return verbs.CMQPConfig{}, fmt.Errorf("rdma_cm resolved the connection onto device %s, not %s, this run's device (%s): "+
				"name %s with -d, or give the address of %s's network interface", got, want, n.why, got, want)
		}
		return verbs.CMQPConfig{PD: n.pd, SendCQ: wk.cq, RecvCQ: wk.cq, MaxSendWR: n.s.spec.TxDepth,
			MaxRecvWR: n.s.spec.RxDepth, MaxInline: n.inline, SRQ: wk.srq}, nil
	}
}

// cmConnect connects every QP through rdma_cm: the client dials the
// peer's GID, the server accepts.
func (n *rdmaSide) cmConnect(ctx context.Context, peerGID verbs.GID) error {
	typ, _ := verbs.ParseQPType(n.s.spec.Transport)
	ip := ""
	if n.cml == nil {
		var err error
		if ip, err = cmAddress(peerGID, "the server's"); err != nil {
			return err
		}
	}
	for _, wk := range n.ws {
		for _, q := range wk.qps {
			var err error
			if n.cml != nil {
				q.cm, err = n.cml.Accept(ctx, n.cmTimeout(), n.cmSetup(wk))
			} else {
				q.cm, err = verbs.CMDial(ctx, ip, n.s.cmPort, typ, n.cmTimeout(), n.cmSetup(wk))
			}
			if err != nil {
				return err
			}
			q.qp = q.cm.QP()
		}
	}
	return nil
}
