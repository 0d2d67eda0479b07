package verbs

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// SRQ is a shared receive queue (struct ibv_srq): the receive queue of
// every QP created with it.
type SRQ struct {
	srq   *C.struct_ibv_srq
	maxWR int
}

// NewSRQ creates a shared receive queue holding up to maxWR receives of
// one scatter entry each.
func (p *PD) NewSRQ(maxWR int) (*SRQ, error) {
	var a C.struct_ibv_srq_init_attr
	a.attr.max_wr = C.uint32_t(maxWR)
	a.attr.max_sge = 1
	srq, err := C.ibv_create_srq(p.pd, &a)
	if srq == nil {
		return nil, verbErr(fmt.Sprintf("ibv_create_srq(max_wr %d)", maxWR), -1, err)
	}
	s := &SRQ{srq: srq, maxWR: maxWR}
	runtime.SetFinalizer(s, (*SRQ).Close)
	return s, nil
}

// Raw is the struct ibv_srq pointer, for the engine's C loops.
func (s *SRQ) Raw() unsafe.Pointer { return unsafe.Pointer(s.srq) }

// Close destroys the shared receive queue, after every QP using it. Safe
// on nil and more than once.
func (s *SRQ) Close() error {
	if s == nil || s.srq == nil {
		return nil
	}
	ret, err := C.ibv_destroy_srq(s.srq)
	if ret != 0 {
		// Still in use (a QP holds it): kept, for a later Close.
		return verbErr("ibv_destroy_srq", ret, err)
	}
	runtime.SetFinalizer(s, nil)
	s.srq = nil
	return nil
}

// srqOf is the C pointer of s, nil for none.
func srqOf(s *SRQ) *C.struct_ibv_srq {
	if s == nil {
		return nil
	}
	return s.srq
}
