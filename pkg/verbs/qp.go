package verbs

/*
#include <string.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"strings"
	"unsafe"
)

// QPType is a queue pair transport.
type QPType int

// Queue pair transports.
const (
	RC QPType = C.IBV_QPT_RC
	UC QPType = C.IBV_QPT_UC
	UD QPType = C.IBV_QPT_UD
)

func (t QPType) String() string {
	switch t {
	case RC:
		return "RC"
	case UC:
		return "UC"
	case UD:
		return "UD"
	}
	return fmt.Sprintf("qp type %d", int(t))
}

// ParseQPType parses "RC", "UC" or "UD" (any case).
func ParseQPType(s string) (QPType, error) {
	switch strings.ToUpper(s) {
	case "RC":
		return RC, nil
	case "UC":
		return UC, nil
	case "UD":
		return UD, nil
	}
	return 0, fmt.Errorf("unknown transport %q: choose RC, UC or UD", s)
}

// QPSpec describes a queue pair to create.
type QPSpec struct {
	Type      QPType
	SendCQ    *CQ
	RecvCQ    *CQ
	MaxSendWR int
	MaxRecvWR int
	MaxSGE    int // per send and receive WR; 0 means 1
	MaxInline int
	// SignalAll makes every send WR generate a completion.
	SignalAll bool
	// SRQ, if set, is the QP's receive queue (MaxRecvWR is then unused).
	SRQ *SRQ
	// SendOps, if not 0, creates the QP through ibv_create_qp_ex for
	// posting these operations through the extended API (ibv_wr_*).
	SendOps SendOps
}

// SendOps is a set of operations a QP posts through the extended API
// (IBV_QP_EX_WITH_*).
type SendOps uint64

// The operations of the extended API that rdma-bench posts.
const (
	OpsWrite    SendOps = C.IBV_QP_EX_WITH_RDMA_WRITE
	OpsWriteImm SendOps = C.IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM
	OpsRead     SendOps = C.IBV_QP_EX_WITH_RDMA_READ
	OpsSend     SendOps = C.IBV_QP_EX_WITH_SEND
	OpsFetchAdd SendOps = C.IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD
	OpsCmpSwap  SendOps = C.IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP
)

// QP is a queue pair (struct ibv_qp).
type QP struct {
	qp        *C.struct_ibv_qp
	typ       QPType
	maxInline int
	ex        bool // created for the extended post API
	srq       *SRQ // its receive queue, kept from the collector while it lives
}

// Extended tells whether the QP posts through the extended API (ibv_wr_*).
func (q *QP) Extended() bool { return q.ex }

// UDQKey is the Q_Key every rdma-bench UD queue pair uses.
const UDQKey = 0x11111111

// NewQP creates a queue pair in the RESET state.
func (p *PD) NewQP(spec QPSpec) (*QP, error) {
	if spec.SendCQ == nil || spec.RecvCQ == nil {
		return nil, fmt.Errorf("creating %s qp: send and receive cqs are required", spec.Type)
	}
	sge := spec.MaxSGE
	if sge == 0 {
		sge = 1
	}
	var ia C.struct_ibv_qp_init_attr
	ia.send_cq = spec.SendCQ.cq
	ia.recv_cq = spec.RecvCQ.cq
	ia.qp_type = C.enum_ibv_qp_type(spec.Type)
	ia.cap.max_send_wr = C.uint32_t(spec.MaxSendWR)
	ia.cap.max_recv_wr = C.uint32_t(spec.MaxRecvWR)
	ia.cap.max_send_sge = C.uint32_t(sge)
	ia.cap.max_recv_sge = C.uint32_t(sge)
	ia.cap.max_inline_data = C.uint32_t(spec.MaxInline)
	if spec.SignalAll {
		ia.sq_sig_all = 1
	}
	if spec.SRQ != nil {
		ia.srq = spec.SRQ.srq
		ia.cap.max_recv_wr = 0
	}
	var qp *C.struct_ibv_qp
	var err error
	verb := "ibv_create_qp"
	if spec.SendOps != 0 {
		verb = "ibv_create_qp_ex"
		qp, err = C.rb_create_qp_ex(p.pd.context, p.pd, &ia, C.uint64_t(spec.SendOps))
	} else {
		qp, err = C.ibv_create_qp(p.pd, &ia)
	}
	if qp == nil {
		return nil, verbErr(fmt.Sprintf("%s(%s, send_wr %d, recv_wr %d, inline %d)",
			verb, spec.Type, spec.MaxSendWR, spec.MaxRecvWR, spec.MaxInline), -1, err)
	}
	q := &QP{qp: qp, typ: spec.Type, maxInline: int(ia.cap.max_inline_data), ex: spec.SendOps != 0, srq: spec.SRQ}
	runtime.SetFinalizer(q, (*QP).Close)
	return q, nil
}

// Type is the QP's transport.
func (q *QP) Type() QPType { return q.typ }

// Raw returns the struct ibv_qp for the measured loops of pkg/engine;
// valid until Close.
func (q *QP) Raw() unsafe.Pointer { return unsafe.Pointer(q.qp) }

// QPN is the queue pair number.
func (q *QP) QPN() uint32 { return uint32(q.qp.qp_num) }

// MaxInline is the inline size the device granted at creation.
func (q *QP) MaxInline() int { return q.maxInline }

// Close destroys the queue pair. Safe on nil and more than once.
func (q *QP) Close() error {
	if q == nil || q.qp == nil {
		return nil
	}
	runtime.SetFinalizer(q, nil)
	ret, err := C.ibv_destroy_qp(q.qp)
	q.qp = nil
	if ret != 0 {
		return verbErr("ibv_destroy_qp", ret, err)
	}
	return nil
}

// QPState is a queue pair state (enum ibv_qp_state).
type QPState int

// Queue pair states.
const (
	QPSReset QPState = C.IBV_QPS_RESET
	QPSInit  QPState = C.IBV_QPS_INIT
	QPSRTR   QPState = C.IBV_QPS_RTR
	QPSRTS   QPState = C.IBV_QPS_RTS
	QPSErr   QPState = C.IBV_QPS_ERR
)

// State queries the QP's current state.
func (q *QP) State() (QPState, error) {
	var s C.int
	if ret, err := C.rb_qp_state(q.qp, &s); ret != 0 {
		return 0, verbErr("ibv_query_qp", ret, err)
	}
	return QPState(s), nil
}

// Path is how to reach a peer: the local port and addressing choices.
type Path struct {
	Port     int
	GIDIndex int
	// Global addresses the peer by GID in a GRH: required on RoCE.
	Global       bool
	MTU          MTU
	SL           int
	TrafficClass int
	HopLimit     int
	// MaxRdAtomic bounds outstanding RDMA READs and atomics (RC only).
	MaxRdAtomic int
}

// Remote identifies the peer's queue pair.
type Remote struct {
	QPN uint32
	PSN uint32
	LID uint16
	GID GID
}

func (p Path) cPath(r Remote) (C.struct_rb_path, error) {
	var c C.struct_rb_path
	if !p.MTU.Valid() {
		return c, fmt.Errorf("mtu %d: choose 256, 512, 1024, 2048 or 4096", p.MTU)
	}
	if p.Port < 1 || p.Port > 255 {
		return c, fmt.Errorf("port %d out of range 1-255", p.Port)
	}
	if p.SL < 0 || p.SL > 15 {
		return c, fmt.Errorf("service level %d out of range 0-15", p.SL)
	}
	if p.TrafficClass < 0 || p.TrafficClass > 255 {
		return c, fmt.Errorf("traffic class %d out of range 0-255", p.TrafficClass)
	}
	c.dest_qpn = C.uint32_t(r.QPN)
	c.rq_psn = C.uint32_t(r.PSN)
	c.dlid = C.uint16_t(r.LID)
	C.memcpy(unsafe.Pointer(&c.dgid[0]), unsafe.Pointer(&r.GID[0]), 16)
	if p.Global {
		c.is_global = 1
	}
	c.sgid_index = C.uint8_t(p.GIDIndex)
	c.port = C.uint8_t(p.Port)
	c.sl = C.uint8_t(p.SL)
	c.traffic_class = C.uint8_t(p.TrafficClass)
	c.hop_limit = C.uint8_t(p.HopLimit)
	c.mtu = C.uint8_t(p.MTU.enum())
	rd := p.MaxRdAtomic
	if rd <= 0 {
		rd = 1
	}
	c.max_rd_atomic = C.uint8_t(rd)
	c.min_rnr_timer = 12 // 0.64 ms, as perftest
	return c, nil
}

// Init moves the QP from RESET to INIT on port with the given remote
// access (ignored for UD, which uses UDQKey).
func (q *QP) Init(port int, access Access) error {
	if ret, err := C.rb_qp_to_init(q.qp, C.uint8_t(port), C.uint32_t(access), UDQKey); ret != 0 {
		return verbErr(fmt.Sprintf("ibv_modify_qp(%s qp %d to INIT)", q.typ, q.QPN()), ret, err)
	}
	return nil
}

// ReadyToReceive moves the QP from INIT to RTR towards remote over path.
// For UD only the state changes: peers are addressed per WR.
func (q *QP) ReadyToReceive(path Path, remote Remote) error {
	cp, err := path.cPath(remote)
	if err != nil {
		return fmt.Errorf("moving %s qp %d to RTR: %w", q.typ, q.QPN(), err)
	}
	if ret, err := C.rb_qp_to_rtr(q.qp, &cp); ret != 0 {
		return verbErr(fmt.Sprintf("ibv_modify_qp(%s qp %d to RTR, remote qpn %d, mtu %d)", q.typ, q.QPN(), remote.QPN, path.MTU), ret, err)
	}
	return nil
}

// ReadyToSend moves the QP from RTR to RTS with send PSN psn. RC uses
// perftest's timeout (14: ~67 ms) and retry counts (7).
func (q *QP) ReadyToSend(psn uint32, maxRdAtomic int) error {
	if maxRdAtomic <= 0 {
		maxRdAtomic = 1
	}
	if ret, err := C.rb_qp_to_rts(q.qp, C.uint32_t(psn), 14, 7, 7, C.uint8_t(maxRdAtomic)); ret != 0 {
		return verbErr(fmt.Sprintf("ibv_modify_qp(%s qp %d to RTS)", q.typ, q.QPN()), ret, err)
	}
	return nil
}

// Connect runs the RESET→INIT→RTR→RTS transitions: local PSN localPSN,
// peer remote, granting access to the peer.
func (q *QP) Connect(path Path, access Access, localPSN uint32, remote Remote) error {
	if err := q.Init(path.Port, access); err != nil {
		return err
	}
	if err := q.ReadyToReceive(path, remote); err != nil {
		return err
	}
	return q.ReadyToSend(localPSN, path.MaxRdAtomic)
}

// AH is an address handle (struct ibv_ah) for sending on UD queue pairs.
type AH struct {
	ah *C.struct_ibv_ah
}

// NewAH creates an address handle towards remote over path.
func (p *PD) NewAH(path Path, remote Remote) (*AH, error) {
	cp, err := path.cPath(remote)
	if err != nil {
		return nil, fmt.Errorf("creating address handle: %w", err)
	}
	ah, cerr := C.rb_create_ah(p.pd, &cp)
	if ah == nil {
		return nil, verbErr("ibv_create_ah", -1, cerr)
	}
	a := &AH{ah: ah}
	runtime.SetFinalizer(a, (*AH).Close)
	return a, nil
}

// Raw returns the struct ibv_ah for the measured loops of pkg/engine;
// valid until Close.
func (a *AH) Raw() unsafe.Pointer { return unsafe.Pointer(a.ah) }

// Close destroys the address handle. Safe on nil and more than once.
func (a *AH) Close() error {
	if a == nil || a.ah == nil {
		return nil
	}
	runtime.SetFinalizer(a, nil)
	ret, err := C.ibv_destroy_ah(a.ah)
	a.ah = nil
	if ret != 0 {
		return verbErr("ibv_destroy_ah", ret, err)
	}
	return nil
}
