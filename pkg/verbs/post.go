package verbs

/*
#include "shim.h"
*/
import "C"

import "fmt"

// Opcode is a send work request's operation (enum ibv_wr_opcode).
type Opcode uint32

// Send work request opcodes.
const (
	OpWrite    Opcode = C.IBV_WR_RDMA_WRITE
	OpWriteImm Opcode = C.IBV_WR_RDMA_WRITE_WITH_IMM
	OpSend     Opcode = C.IBV_WR_SEND
	OpSendImm  Opcode = C.IBV_WR_SEND_WITH_IMM
	OpRead     Opcode = C.IBV_WR_RDMA_READ
	OpCompSwap Opcode = C.IBV_WR_ATOMIC_CMP_AND_SWP
	OpFetchAdd Opcode = C.IBV_WR_ATOMIC_FETCH_AND_ADD
)

func (o Opcode) String() string {
	switch o {
	case OpWrite:
		return "rdma write"
	case OpWriteImm:
		return "rdma write with immediate"
	case OpSend:
		return "send"
	case OpSendImm:
		return "send with immediate"
	case OpRead:
		return "rdma read"
	case OpCompSwap:
		return "compare and swap"
	case OpFetchAdd:
		return "fetch and add"
	}
	return fmt.Sprintf("opcode %d", uint32(o))
}

// SendWR is one send-queue work request with a single scatter/gather
// entry. Posting from Go costs a cgo call per request: it is for set-up
// and tests; measured loops post from C.
type SendWR struct {
	ID     uint64
	Op     Opcode
	Local  *MR
	Offset int // into Local
	Length int
	// RemoteAddr and RKey address the peer's memory (RDMA and atomics).
	RemoteAddr uint64
	RKey       uint32
	Imm        uint32
	// CompareAdd and Swap are the atomic operands.
	CompareAdd uint64
	Swap       uint64
	Signaled   bool
	Inline     bool
	// AH, RemoteQPN address a UD peer.
	AH        *AH
	RemoteQPN uint32
}

// PostSend posts one send-queue work request.
func (q *QP) PostSend(wr SendWR) error {
	if wr.Local == nil || wr.Offset < 0 || wr.Length < 0 || wr.Offset+wr.Length > wr.Local.Len() {
		return fmt.Errorf("posting %s: local range [%d, %d) outside the memory region", wr.Op, wr.Offset, wr.Offset+wr.Length)
	}
	w := C.struct_rb_wr{
		wr_id:       C.uint64_t(wr.ID),
		laddr:       C.uint64_t(wr.Local.Addr() + uint64(wr.Offset)),
		length:      C.uint32_t(wr.Length),
		lkey:        C.uint32_t(wr.Local.LKey()),
		raddr:       C.uint64_t(wr.RemoteAddr),
		rkey:        C.uint32_t(wr.RKey),
		opcode:      C.uint32_t(wr.Op),
		imm_data:    C.uint32_t(wr.Imm),
		compare_add: C.uint64_t(wr.CompareAdd),
		swap:        C.uint64_t(wr.Swap),
		remote_qpn:  C.uint32_t(wr.RemoteQPN),
		remote_qkey: UDQKey,
	}
	if wr.Signaled {
		w.send_flags |= C.IBV_SEND_SIGNALED
	}
	if wr.Inline {
		w.send_flags |= C.IBV_SEND_INLINE
	}
	if wr.AH != nil {
		w.ah = wr.AH.ah
	}
	if ret, err := C.rb_post_send(q.qp, &w); ret != 0 {
		return verbErr(fmt.Sprintf("ibv_post_send(%s)", wr.Op), ret, err)
	}
	return nil
}

// PostRecv posts one receive buffer: length bytes of mr from offset.
func (q *QP) PostRecv(id uint64, mr *MR, offset, length int) error {
	if offset < 0 || length < 0 || offset+length > mr.Len() {
		return fmt.Errorf("posting receive: range [%d, %d) outside the memory region", offset, offset+length)
	}
	if ret, err := C.rb_post_recv(q.qp, C.uint64_t(id), C.uint64_t(mr.Addr()+uint64(offset)), C.uint32_t(length), C.uint32_t(mr.LKey())); ret != 0 {
		return verbErr("ibv_post_recv", ret, err)
	}
	return nil
}
