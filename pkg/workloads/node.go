package workloads

import (
	"errors"
	"fmt"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// udGRH is the Global Routing Header that precedes every UD receive.
const udGRH = 40

// node is one side's verbs resources: device, protection domain, and per
// worker thread a completion queue and its queue pairs with their memory.
type node struct {
	cfg     *Config
	w       Workload
	ctx     *verbs.Context
	port    verbs.PortAttr
	gid     verbs.GIDEntry
	limits  DeviceLimits
	pd      *verbs.PD
	workers []*worker
}

// worker is what one thread drives: its own CQ and QPs, and its engine.
type worker struct {
	cq  *verbs.CQ
	qps []*qpRes
	eng *verbs.Engine
}

// qpRes is a queue pair with its memory: a local region (source of
// writes and sends, sink of reads and atomics) and, after it, a target
// region (where the peer writes, reads or sends).
type qpRes struct {
	qp     *verbs.QP
	buf    *verbs.Buffer
	mr     *verbs.MR
	psn    uint32
	region int
	ah     *verbs.AH
	cm     *verbs.CMConn // with --rdma-cm: owns qp
}

func (q *qpRes) local() []byte  { return q.buf.Bytes()[:q.region] }
func (q *qpRes) target() []byte { return q.buf.Bytes()[q.region:] }

// access is what the peer may do to this side's memory: only what the
// workload needs.
func (n *node) access() verbs.Access {
	a := verbs.AccessLocalWrite
	switch n.w.Op {
	case OpWrite:
		a |= verbs.AccessRemoteWrite
	case OpRead:
		a |= verbs.AccessRemoteRead
	case OpAtomic:
		a |= verbs.AccessRemoteAtomic
		if n.cfg.Validate {
			// Validation reads the target back after the run.
			a |= verbs.AccessRemoteRead
		}
	}
	return a
}

// openNode opens the device, checks the configuration against it, and
// creates every resource. On error, everything created is released.
func openNode(cfg *Config, w Workload) (n *node, err error) {
	n = &node{cfg: cfg, w: w}
	defer func() {
		if err != nil {
			n.Close()
			n = nil
		}
	}()
	open := verbs.Open
	if cfg.RDMACM {
		open = verbs.OpenCM
	}
	if n.ctx, err = open(cfg.Device); err != nil {
		return nil, err
	}
	if n.port, err = n.ctx.ActivePort(cfg.IBPort); err != nil {
		return nil, err
	}
	table, err := n.ctx.GIDTable(cfg.IBPort)
	if err != nil {
		return nil, err
	}
	if n.gid, err = verbs.SelectGID(table, cfg.GIDIndex); err != nil {
		return nil, fmt.Errorf("%s port %d: %w", n.ctx.Name(), cfg.IBPort, err)
	}
	attr, err := n.ctx.Query()
	if err != nil {
		return nil, err
	}
	if n.pd, err = n.ctx.NewPD(); err != nil {
		return nil, err
	}
	n.limits = DeviceLimits{Name: n.ctx.Name(), MaxQPWR: attr.MaxQPWR, MaxCQE: attr.MaxCQE, MaxMRSize: attr.MaxMRSize,
		ActiveMTU: int(n.port.ActiveMTU), MaxRdAtom: attr.MaxQPRdAtom, Atomics: attr.Atomic != verbs.AtomicNone}
	if n.limits.MaxInline, err = n.probeInline(); err != nil {
		return nil, err
	}
	if err := cfg.CheckDevice(w, n.limits); err != nil {
		return nil, err
	}
	if cfg.Inline < 0 {
		cfg.Inline = 0
		if w.Op == OpWrite || w.Op == OpSend {
			cfg.Inline = n.limits.MaxInline
		}
	}
	grh := 0
	if cfg.Transport == "UD" {
		grh = udGRH
	}
	region := roundUp(cfg.Size+grh, 64)
	qpt, _ := verbs.ParseQPType(cfg.Transport)
	for t := 0; t < cfg.Threads; t++ {
		wk := &worker{}
		n.workers = append(n.workers, wk)
		if wk.cq, err = n.ctx.NewCQ(cfg.cqEntries(), cfg.Events); err != nil {
			return nil, err
		}
		for i := 0; i < cfg.qpsPerThread(); i++ {
			q := &qpRes{region: region, psn: exchange.RandomPSN()}
			wk.qps = append(wk.qps, q)
			if q.buf, err = verbs.NewBuffer(2 * region); err != nil {
				return nil, err
			}
			if q.mr, err = n.pd.RegisterMR(q.buf, n.access()); err != nil {
				return nil, err
			}
			if cfg.RDMACM {
				continue // rdma_cm creates the QP when it connects
			}
			q.qp, err = n.pd.NewQP(verbs.QPSpec{Type: qpt, SendCQ: wk.cq, RecvCQ: wk.cq,
				MaxSendWR: cfg.TxDepth, MaxRecvWR: cfg.RxDepth, MaxInline: cfg.Inline})
			if err != nil {
				return nil, err
			}
		}
	}
	return n, nil
}

// probeInline finds the largest inline size the device grants for this
// transport by creating throw-away queue pairs, as perftest does.
func (n *node) probeInline() (int, error) {
	cq, err := n.ctx.NewCQ(4, false)
	if err != nil {
		return 0, err
	}
	defer cq.Close()
	qpt, err := verbs.ParseQPType(n.cfg.Transport)
	if err != nil {
		return 0, err
	}
	for size := 1024; size >= 16; size /= 2 {
		qp, err := n.pd.NewQP(verbs.QPSpec{Type: qpt, SendCQ: cq, RecvCQ: cq, MaxSendWR: 1, MaxRecvWR: 1, MaxInline: size})
		if err == nil {
			granted := qp.MaxInline()
			qp.Close()
			return max(size, granted), nil
		}
	}
	return 0, nil
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }

// endpoints describes this side's QPs for the peer, in order.
func (n *node) endpoints() exchange.Endpoints {
	var e exchange.Endpoints
	for _, wk := range n.workers {
		for _, q := range wk.qps {
			qpn := uint32(0) // rdma_cm creates and numbers the QP later
			if q.qp != nil {
				qpn = q.qp.QPN()
			}
			e.QPs = append(e.QPs, exchange.Endpoint{
				QPN: qpn, PSN: q.psn, GID: exchange.GID(n.gid.GID), LID: n.port.LID,
				MTU: n.cfg.pathMTU(int(n.port.ActiveMTU)), Addr: q.mr.Addr() + uint64(q.region),
				RKey: q.mr.RKey(), Len: uint64(q.region),
			})
		}
	}
	return e
}

// connect brings every QP to RTS towards its peer and builds the engines.
func (n *node) connect(peer exchange.Endpoints) error {
	total := 0
	for _, wk := range n.workers {
		total += len(wk.qps)
	}
	if len(peer.QPs) != total {
		return fmt.Errorf("peer has %d queue pairs, this side %d", len(peer.QPs), total)
	}
	k := 0
	for _, wk := range n.workers {
		spec := n.engineSpec(wk)
		for _, q := range wk.qps {
			pe := peer.QPs[k]
			k++
			if pe.Len < uint64(n.cfg.Size) {
				return fmt.Errorf("peer buffer of %d bytes is smaller than the message size %d", pe.Len, n.cfg.Size)
			}
			path := verbs.Path{Port: n.cfg.IBPort, GIDIndex: n.gid.Index, Global: n.port.LinkLayer == verbs.LinkEthernet,
				MTU: verbs.MTU(min(n.cfg.pathMTU(int(n.port.ActiveMTU)), pe.MTU)), SL: n.cfg.SL, TrafficClass: n.cfg.TClass,
				MaxRdAtomic: min(max(n.limits.MaxRdAtom, 1), 16)}
			remote := verbs.Remote{QPN: pe.QPN, PSN: pe.PSN, LID: pe.LID, GID: verbs.GID(pe.GID)}
			if q.cm == nil {
				if err := q.qp.Connect(path, n.access()&^verbs.AccessLocalWrite, q.psn, remote); err != nil {
					return err
				}
			}
			eq := verbs.EngineQP{QP: q.qp, Local: q.mr, RemoteAddr: pe.Addr, RKey: pe.RKey,
				Recv: q.mr, RecvOffset: q.region, RecvLen: q.region}
			if n.cfg.Transport == "UD" {
				ah, err := n.pd.NewAH(path, remote)
				if err != nil {
					return err
				}
				q.ah = ah
				eq.AH, eq.RemoteQPN = ah, pe.QPN
			}
			spec.QPs = append(spec.QPs, eq)
		}
		eng, err := verbs.NewEngine(spec)
		if err != nil {
			return err
		}
		wk.eng = eng
	}
	return nil
}

// engineSpec is the engine configuration shared by a worker's QPs.
func (n *node) engineSpec(wk *worker) verbs.EngineSpec {
	c := n.cfg
	s := verbs.EngineSpec{Size: c.Size, TxDepth: c.TxDepth, RxDepth: c.RxDepth, CQMod: c.CQMod,
		PostList: c.PostList, InlineSize: c.Inline, CQ: wk.cq, Events: c.Events, IdleTimeout: c.IdleTimeout}
	switch n.w.Op {
	case OpWrite:
		s.Verb = verbs.EngWrite
		// A write ping-pong in event mode, or with --imm, needs a
		// completion at the receiver: write with immediate.
		if c.Imm || (c.Events && n.w.Latency()) {
			s.Verb = verbs.EngWriteImm
		}
	case OpRead:
		s.Verb = verbs.EngRead
	case OpSend:
		s.Verb = verbs.EngSend
	case OpAtomic:
		s.Verb = verbs.EngFetchAdd
		s.CompareAdd = 1
		if c.Atomic == "cswap" {
			s.Verb, s.CompareAdd, s.Swap = verbs.EngCompSwap, 0, 1
		}
	}
	return s
}

// Close releases everything, engines and QPs first. Safe on nil.
func (n *node) Close() error {
	if n == nil {
		return nil
	}
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, wk := range n.workers {
		add(wk.eng.Close())
		for _, q := range wk.qps {
			add(q.ah.Close())
			if q.cm != nil {
				add(q.cm.Close())
			} else {
				add(q.qp.Close())
			}
			add(q.mr.Close())
			add(q.buf.Close())
		}
		add(wk.cq.Close())
	}
	n.workers = nil
	add(n.pd.Close())
	add(n.ctx.Close())
	return errors.Join(errs...)
}
