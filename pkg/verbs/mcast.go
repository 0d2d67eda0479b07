package verbs

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// MulticastQPN is the destination QP number of a send to a multicast
// group: every QP attached to the group receives it.
const MulticastQPN = 0xFFFFFF

// AttachMcast attaches the UD queue pair to the multicast group gid
// (ibv_attach_mcast): it then receives what is sent to the group. lid is
// the group's LID on InfiniBand, 0 on RoCE.
func (q *QP) AttachMcast(gid GID, lid uint16) error {
	if !gid.IsMulticast() {
		return fmt.Errorf("attaching %s qp %d to %s: not a multicast gid", q.typ, q.QPN(), gid)
	}
	g := (*C.union_ibv_gid)(unsafe.Pointer(&gid[0]))
	if ret, err := C.ibv_attach_mcast(q.qp, g, C.uint16_t(lid)); ret != 0 {
		return verbErr(fmt.Sprintf("ibv_attach_mcast(%s qp %d, %s)", q.typ, q.QPN(), gid), ret, err)
	}
	return nil
}

// DetachMcast detaches the queue pair from the group (ibv_detach_mcast):
// needed before the QP is destroyed.
func (q *QP) DetachMcast(gid GID, lid uint16) error {
	g := (*C.union_ibv_gid)(unsafe.Pointer(&gid[0]))
	if ret, err := C.ibv_detach_mcast(q.qp, g, C.uint16_t(lid)); ret != 0 {
		return verbErr(fmt.Sprintf("ibv_detach_mcast(%s qp %d, %s)", q.typ, q.QPN(), gid), ret, err)
	}
	return nil
}
