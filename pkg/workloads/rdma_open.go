package workloads

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/engine"
	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// udGRH is the Global Routing Header that precedes every UD receive.
const udGRH = 40

// device is an opened device port: its context, port attributes, GID,
// protection domain and limits for one transport.
type device struct {
	ctx    *verbs.Context
	port   verbs.PortAttr
	gid    verbs.GIDEntry
	pd     *verbs.PD
	limits DeviceLimits
	why    string // why this device ([ChooseDevice])
}

// rdmaSide is one side's verbs resources: the device, and per worker
// thread a completion queue and its queue pairs with their memory and
// engine.
type rdmaSide struct {
	*device
	s      *session
	inline int               // resolved -I
	postEx bool              // post through the extended API
	cml    *verbs.CMListener // server with --rdma-cm
	peer   exchange.Endpoints

	mu sync.Mutex // guards workers against close, for abort
	ws []*rdmaWorker

	infoOnce sync.Once
	info     *report.Device // deviceInfo's
}

// rdmaWorker is what one thread drives: its own CQ and QPs, and its engine.
type rdmaWorker struct {
	cq  *verbs.CQ
	srq *verbs.SRQ // with --use-srq: the receive queue of every QP
	qps []*qpRes
	eng *engine.Engine
}

// qpRes is a queue pair with its memory, two regions registered apart: a
// local one (source of writes and sends, sink of reads and atomics) that
// the peer cannot reach, and a target one (where the peer writes, reads or
// sends) with only the remote access the peer needs: the only one it is
// told of.
type qpRes struct {
	qp     *verbs.QP
	lbuf   *verbs.Buffer
	lmr    *verbs.MR
	tbuf   *verbs.Buffer
	tmr    *verbs.MR
	psn    uint32
	region int
	ah     *verbs.AH
	cm     *verbs.CMConn // with --rdma-cm: owns qp
	mc     *mcastMember  // with -g: the group this QP receives through
}

func (q *qpRes) local() []byte  { return q.lbuf.Bytes() }
func (q *qpRes) target() []byte { return q.tbuf.Bytes() }

// openDevice opens l's device and port and reads its limits for
// transport; with cm, through rdma_cm's device list. On error nothing is
// left open.
func openDevice(l Local, transport string, cm bool, ops verbs.SendOps) (_ *device, err error) {
	d := &device{}
	defer func() {
		if err != nil {
			d.close()
		}
	}()
	open := verbs.Open
	if cm {
		open = verbs.OpenCM
	}
	name, why := ChooseDevice(l.Device)
	if d.ctx, err = open(name); err != nil {
		return nil, err
	}
	d.why = why
	if d.port, err = d.ctx.ActivePort(l.IBPort); err != nil {
		return nil, err
	}
	table, err := d.ctx.GIDTable(l.IBPort)
	if err != nil {
		return nil, err
	}
	if d.gid, err = verbs.SelectGID(table, l.GIDIndex); err != nil {
		return nil, fmt.Errorf("%s port %d: %w", d.ctx.Name(), l.IBPort, err)
	}
	if cm {
		if _, err := cmAddress(d.gid.GID, "this side's"); err != nil {
			return nil, err
		}
	}
	if d.pd, err = d.ctx.NewPD(); err != nil {
		return nil, err
	}
	attr, err := d.ctx.Query()
	if err != nil {
		return nil, err
	}
	d.limits = DeviceLimits{Name: d.ctx.Name(), MaxQPWR: attr.MaxQPWR, MaxCQE: attr.MaxCQE, MaxMRSize: attr.MaxMRSize,
		ActiveMTU: int(d.port.ActiveMTU), MaxRdAtom: attr.MaxQPRdAtom, Atomics: attr.Atomic != verbs.AtomicNone,
		FirmwareVersion: attr.FirmwareVersion}
	if l.ODP {
		if d.limits.ODP, err = d.ctx.QueryODP(); err != nil {
			return nil, err
		}
	}
	if d.limits.MaxInline, err = probeInline(d.ctx, d.pd, transport); err != nil {
		return d, err
	}
	d.limits.PostEx = probePostEx(d.ctx, d.pd, transport, ops)
	return d, nil
}

// describe is the report's description of the device port in use.
func (d *device) describe(l Local) *report.Device {
	dev := &report.Device{Name: d.ctx.Name(), FirmwareVersion: d.limits.FirmwareVersion,
		Driver: verbs.DeviceDriver(d.ctx.Name()), Port: l.IBPort,
		LinkLayer: d.port.LinkLayer.String(), MTU: l.pathMTU(int(d.port.ActiveMTU)),
		GIDType: d.gid.Type.String(), GIDIndex: d.gid.Index, GID: d.gid.GID.String(),
		Chosen: d.why, Provider: verbs.Provider(d.ctx.Name())}
	hostSys.describeSysfs(dev)
	return dev
}

func (d *device) close() error {
	err := errors.Join(d.pd.Close(), d.ctx.Close())
	d.pd, d.ctx = nil, nil
	return err
}

// Probe opens the device of l, checks s (resolved) against it, and
// describes it with its limits for s's transport: for the defaults and
// checks a client makes before it connects.
func Probe(s point.Resolved, l Local) (*report.Device, DeviceLimits, error) {
	d, err := openDevice(l, s.Transport, s.RDMACM, SendOps(s))
	if err != nil {
		return nil, DeviceLimits{}, err
	}
	defer d.close()
	return d.describe(l), d.limits, nil
}

// openRDMA opens the device, checks the run against it, and creates every
// resource. On error, everything created is released.
func openRDMA(s *session) (_ side, err error) {
	d, err := openDevice(s.local, s.spec.Transport, s.spec.RDMACM, SendOps(s.spec))
	if err != nil {
		return nil, err
	}
	n := &rdmaSide{device: d, s: s}
	defer func() {
		if err != nil {
			n.close()
		}
	}()
	if err := CheckDevice(s.spec, s.local, s.w, n.limits); err != nil {
		return nil, err
	}
	n.postEx = s.spec.PostAPI != "classic" && n.limits.PostEx && !s.spec.RDMACM
	n.inline = s.local.Inline
	if n.inline < 0 {
		n.inline = 0
		if s.w.Op == catalog.OpWrite || s.w.Op == catalog.OpSend {
			n.inline = n.limits.MaxInline
		}
	}
	if err := n.create(); err != nil {
		return nil, err
	}
	if err := n.chooseGroups(); err != nil {
		return nil, err
	}
	if s.spec.RDMACM && s.role == server {
		// Listening before the endpoints are exchanged: it is up when
		// the client dials.
		if n.cml, err = n.cmListen(); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// probeInline finds the largest inline size the device grants for a
// transport by creating throw-away queue pairs, as perftest does.
func probeInline(ctx *verbs.Context, pd *verbs.PD, transport string) (int, error) {
	cq, err := ctx.NewCQ(4, false)
	if err != nil {
		return 0, err
	}
	defer cq.Close()
	qpt, err := verbs.ParseQPType(transport)
	if err != nil {
		return 0, err
	}
	for size := 1024; size >= 16; size /= 2 {
		qp, err := pd.NewQP(verbs.QPSpec{Type: qpt, SendCQ: cq, RecvCQ: cq, MaxSendWR: 1, MaxRecvWR: 1, MaxInline: size})
		if err == nil {
			granted := qp.MaxInline()
			qp.Close()
			return max(size, granted), nil
		}
	}
	return 0, nil
}

// create makes every worker's CQ, and its QPs with their memory.
func (n *rdmaSide) create() error {
	spec := n.s.spec
	grh := 0
	if spec.Transport == "UD" {
		grh = udGRH
	}
	region := roundUp(spec.Size+grh, 64) * spec.Slots()
	qpt, _ := verbs.ParseQPType(spec.Transport)
	for range spec.Workers() {
		wk := &rdmaWorker{}
		n.mu.Lock()
		n.ws = append(n.ws, wk)
		n.mu.Unlock()
		var err error
		if wk.cq, err = n.ctx.NewCQ(spec.CQEntries(), spec.Events); err != nil {
			return err
		}
		if spec.SRQ {
			if wk.srq, err = n.pd.NewSRQ(spec.RxDepth); err != nil {
				return err
			}
		}
		for range spec.QPsPerThread() {
			q := &qpRes{region: region, psn: exchange.RandomPSN()}
			wk.qps = append(wk.qps, q)
			if q.lbuf, err = n.newBuffer(region, spec.HugePages); err != nil {
				return err
			}
			if q.lmr, err = n.pd.RegisterMR(q.lbuf, verbs.AccessLocalWrite); err != nil {
				return err
			}
			if q.tbuf, err = n.newBuffer(region, spec.HugePages); err != nil {
				return err
			}
			if q.tmr, err = n.pd.RegisterMR(q.tbuf, verbs.AccessLocalWrite|n.remoteAccess()); err != nil {
				return err
			}
			if spec.RDMACM {
				continue // rdma_cm creates the QP when it connects
			}
			qs := verbs.QPSpec{Type: qpt, SendCQ: wk.cq, RecvCQ: wk.cq,
				MaxSendWR: spec.TxDepth, MaxRecvWR: spec.RxDepth, MaxInline: n.inline, SRQ: wk.srq}
			if n.postEx {
				qs.SendOps = SendOps(spec)
			}
			q.qp, err = n.pd.NewQP(qs)
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// newBuffer maps a registered region: of 2 MiB pages with
// --use-hugepages (never small ones instead), else of the system's; on
// the NUMA node of the side's placement, where it has one.
func (n *rdmaSide) newBuffer(size int, huge bool) (*verbs.Buffer, error) {
	var buf *verbs.Buffer
	var err error
	mapped := roundUp(size, os.Getpagesize())
	if huge {
		buf, err = verbs.NewHugeBuffer(size)
		mapped = int(verbs.HugePagesFor(size)) * verbs.HugePageBytes
	} else {
		buf, err = verbs.NewBuffer(size)
	}
	if err != nil || !n.s.local.Placement.Placed() {
		return buf, err
	}
	if err := bindBuffer(buf, mapped, n.s.local.Placement.Node, huge); err != nil {
		buf.Close()
		return nil, err
	}
	return buf, nil
}

// probePostEx tells whether the device creates a queue pair for the
// extended post API with ops, by creating a throw-away one.
func probePostEx(ctx *verbs.Context, pd *verbs.PD, transport string, ops verbs.SendOps) bool {
	qpt, err := verbs.ParseQPType(transport)
	if err != nil || ops == 0 {
		return false
	}
	cq, err := ctx.NewCQ(4, false)
	if err != nil {
		return false
	}
	defer cq.Close()
	qp, err := pd.NewQP(verbs.QPSpec{Type: qpt, SendCQ: cq, RecvCQ: cq, MaxSendWR: 1, MaxRecvWR: 1, SendOps: ops})
	if err != nil {
		return false
	}
	qp.Close()
	return true
}

// SendOps is what s's queue pairs post: its operation, in the extended
// API's terms.
func SendOps(s point.Resolved) verbs.SendOps {
	w, _ := catalog.Lookup(s.Workload)
	switch {
	case w.Op == catalog.OpWrite && s.Imm:
		return verbs.OpsWriteImm
	case w.Op == catalog.OpWrite:
		return verbs.OpsWrite
	case w.Op == catalog.OpRead:
		return verbs.OpsRead
	case w.Op == catalog.OpSend:
		return verbs.OpsSend
	case w.Op == catalog.OpAtomic && s.Atomic == "cswap":
		return verbs.OpsCmpSwap
	case w.Op == catalog.OpAtomic:
		return verbs.OpsFetchAdd
	}
	return 0
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }

// remoteAccess is what the peer may do to this side's target region and
// QPs: the workload's operation, and only when the peer performs it
// towards this side (the server is always the client's target; the client
// is the server's when it pongs or streams back).
func (n *rdmaSide) remoteAccess() verbs.Access {
	w, spec := n.s.w, n.s.spec
	if n.s.role == client && !spec.Bidir && !(w.Latency() && w.PingPong()) {
		return 0
	}
	switch w.Op {
	case catalog.OpWrite:
		return verbs.AccessRemoteWrite
	case catalog.OpRead:
		return verbs.AccessRemoteRead
	case catalog.OpAtomic:
		if spec.Validate {
			// Validation reads the target back after the run.
			return verbs.AccessRemoteAtomic | verbs.AccessRemoteRead
		}
		return verbs.AccessRemoteAtomic
	}
	return 0
}

func (n *rdmaSide) workers() int { return len(n.ws) }

// posted is the operations every engine posted, warm-up included.
func (n *rdmaSide) posted() uint64 {
	var p uint64
	for _, wk := range n.ws {
		p += wk.eng.PostedTotal()
	}
	return p
}

// device describes the device, port and GID in use, as read once per
// run (the counters, this side's figures and a lost completion's message
// all name it: several sysfs and /proc reads a time under emulation).
func (n *rdmaSide) deviceInfo() *report.Device {
	n.infoOnce.Do(func() { n.info = n.describe(n.s.local) })
	d := *n.info
	return &d
}

// params adds the resolved device settings to a result's parameters.
func (n *rdmaSide) params(p *report.Params) {
	p.Device, p.Port, p.GIDIndex = n.ctx.Name(), n.s.local.IBPort, n.gid.Index
	p.MTU, p.InlineBytes = n.s.local.pathMTU(int(n.port.ActiveMTU)), n.inline
	p.PostAPI = map[bool]string{true: "ex", false: "classic"}[n.postEx]
	n.mcastParams(p)
}

// close releases everything, engines and QPs first. Safe on a partly
// opened side and more than once.
func (n *rdmaSide) close() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	n.mu.Lock()
	workers := n.ws
	n.ws = nil
	n.mu.Unlock()
	for _, wk := range workers {
		add(wk.eng.Close())
		for _, q := range wk.qps {
			add(q.leaveGroup())
			add(q.ah.Close())
			if q.cm != nil {
				add(q.cm.Close())
			} else {
				add(q.qp.Close())
			}
			add(q.lmr.Close())
			add(q.lbuf.Close())
			add(q.tmr.Close())
			add(q.tbuf.Close())
		}
		add(wk.srq.Close())
		add(wk.cq.Close())
	}
	if n.cml != nil {
		add(n.cml.Close())
		n.cml = nil
	}
	add(n.device.close())
	return errors.Join(errs...)
}
