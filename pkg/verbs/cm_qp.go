package verbs

/*
#include "cm_shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// createQP runs setup on the id's device and creates the QP on what it
// returns.
func (c *CMConn) createQP(setup CMSetup) error {
	if c.id.verbs == nil {
		return fmt.Errorf("%s: rdma_cm bound the connection to no RDMA device", c.op)
	}
	c.ctx = cmContext(c.id.verbs)
	if setup == nil {
		return fmt.Errorf("%s: no setup function", c.op)
	}
	cfg, err := setup(c.ctx)
	if err != nil {
		return fmt.Errorf("%s: setup on %s: %w", c.op, c.ctx.name, err)
	}
	if cfg.PD == nil || cfg.PD.pd == nil || cfg.SendCQ == nil || cfg.SendCQ.cq == nil || cfg.RecvCQ == nil || cfg.RecvCQ.cq == nil {
		return fmt.Errorf("%s: setup returned no protection domain or no completion queues", c.op)
	}
	if cfg.PD.pd.context != c.id.verbs {
		return fmt.Errorf("%s: the protection domain belongs to another device context: create it on the Context passed to setup", c.op)
	}
	sge := cfg.MaxSGE
	if sge <= 0 {
		sge = 1
	}
	caps := C.struct_rb_cm_qp_caps{
		max_send_wr: C.uint32_t(cfg.MaxSendWR),
		max_recv_wr: C.uint32_t(cfg.MaxRecvWR),
		max_sge:     C.uint32_t(sge),
		max_inline:  C.uint32_t(cfg.MaxInline),
	}
	if cfg.SignalAll {
		caps.sig_all = 1
	}
	caps.srq = srqOf(cfg.SRQ)
	if ret := C.rb_cm_create_qp(c.id, cfg.PD.pd, cfg.SendCQ.cq, cfg.RecvCQ.cq, &caps); ret != 0 {
		return fmt.Errorf("%s: %w", c.op, verbErr(fmt.Sprintf("rdma_create_qp(%s, send_wr %d, recv_wr %d, inline %d)",
			c.typ, cfg.MaxSendWR, cfg.MaxRecvWR, cfg.MaxInline), ret, nil))
	}
	c.qp = &QP{qp: c.id.qp, typ: c.typ, maxInline: int(caps.max_inline)}
	c.cfg = cfg
	return nil
}

// setAckTimeout gives RC connections perftest's local ACK timeout instead
// of the one rdma_cm derives from the packet lifetime.
func (c *CMConn) setAckTimeout() error {
	if c.typ != RC {
		return nil
	}
	v := C.uint8_t(cmAckTimeout)
	if ret, err := C.rdma_set_option(c.id, C.RDMA_OPTION_ID, C.RDMA_OPTION_ID_ACK_TIMEOUT, unsafe.Pointer(&v), C.size_t(unsafe.Sizeof(v))); ret != 0 {
		return fmt.Errorf("%s: %w", c.op, verbErr("rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT)", ret, err))
	}
	return nil
}

// setMinRNRTimer gives an RTS RC QP cmMinRNRTimer.
func (c *CMConn) setMinRNRTimer() error {
	if c.typ != RC {
		return nil
	}
	if ret, err := C.rb_cm_set_min_rnr_timer(c.qp.qp, cmMinRNRTimer); ret != 0 {
		return fmt.Errorf("%s: %w", c.op, verbErr(fmt.Sprintf("ibv_modify_qp(%s qp %d RTS to RTS, min_rnr_timer %d)", c.typ, c.qp.QPN(), cmMinRNRTimer), ret, err))
	}
	return nil
}

// CMQPAttr is what rdma_cm chose for a connected queue pair.
type CMQPAttr struct {
	State           QPState
	PathMTU         MTU
	DestQPN         uint32
	SQPSN, RQPSN    uint32
	Access          Access // the QP's remote access flags
	GIDIndex        int
	MaxRdAtomic     int // outstanding READs/atomics as initiator (RC)
	MaxDestRdAtomic int // outstanding READs/atomics as responder (RC)
	Timeout         int // local ACK timeout exponent (RC)
	RetryCount      int // (RC)
	RNRRetry        int // (RC)
	MinRNRTimer     int // (RC)
}

// Attr queries the connected QP's attributes (ibv_query_qp).
func (c *CMConn) Attr() (CMQPAttr, error) {
	if c == nil || c.qp == nil || c.qp.qp == nil {
		return CMQPAttr{}, errors.New("querying a closed rdma_cm connection")
	}
	var a C.struct_rb_cm_qp_attr
	if ret := C.rb_cm_query_qp(c.qp.qp, &a); ret != 0 {
		return CMQPAttr{}, verbErr(fmt.Sprintf("ibv_query_qp(%s qp %d)", c.typ, c.qp.QPN()), ret, nil)
	}
	return CMQPAttr{
		State: QPState(a.state), PathMTU: mtuFromEnum(C.enum_ibv_mtu(a.path_mtu)), DestQPN: uint32(a.dest_qp_num),
		SQPSN: uint32(a.sq_psn), RQPSN: uint32(a.rq_psn), Access: Access(a.access), GIDIndex: int(a.sgid_index),
		MaxRdAtomic: int(a.max_rd_atomic), MaxDestRdAtomic: int(a.max_dest_rd_atomic), Timeout: int(a.timeout),
		RetryCount: int(a.retry_cnt), RNRRetry: int(a.rnr_retry), MinRNRTimer: int(a.min_rnr_timer),
	}, nil
}
