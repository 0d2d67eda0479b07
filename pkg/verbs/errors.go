package verbs

/*
#include <infiniband/verbs.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"syscall"
)

// ErrNoDevice is returned when the host has no RDMA device at all.
var ErrNoDevice = errors.New("no RDMA device found")

// ErrNoSuchDevice, ErrNoSuchPort and ErrNoSuchGID: the device, port or GID
// index asked for does not exist (the error names the ones that do).
var (
	ErrNoSuchDevice = errors.New("no such RDMA device")
	ErrNoSuchPort   = errors.New("no such port")
	ErrNoSuchGID    = errors.New("no such GID index")
)

// ErrTimeout is returned when a wait for a completion exceeds its deadline.
var ErrTimeout = errors.New("timed out waiting for a completion")

// VerbError is the failure of one libibverbs call: the verb's name and errno.
type VerbError struct {
	Verb  string
	Errno syscall.Errno
}

func (e *VerbError) Error() string {
	if e.Errno == 0 {
		return e.Verb + " failed"
	}
	return fmt.Sprintf("%s: %v (errno %d)", e.Verb, e.Errno, int(e.Errno))
}

// Unwrap lets errors.Is match the errno (for example syscall.EINVAL).
func (e *VerbError) Unwrap() error { return e.Errno }

// verbErr builds a VerbError from a return value that is an errno, or from
// the errno cgo captured when the C function returned a failure marker.
func verbErr(verb string, ret C.int, err error) error {
	var errno syscall.Errno
	switch {
	case ret > 0:
		errno = syscall.Errno(ret)
	case ret < 0 && -ret < 4096:
		errno = syscall.Errno(-ret)
	}
	if errno == 0 {
		errors.As(err, &errno)
	}
	return &VerbError{Verb: verb, Errno: errno}
}

// WCStatus is a work completion's status (enum ibv_wc_status).
type WCStatus uint32

// Work completion statuses that the benchmark tells apart.
const (
	WCSuccess        WCStatus = C.IBV_WC_SUCCESS
	WCRemAccessErr   WCStatus = C.IBV_WC_REM_ACCESS_ERR
	WCRNRRetryExcErr WCStatus = C.IBV_WC_RNR_RETRY_EXC_ERR
	WCRetryExcErr    WCStatus = C.IBV_WC_RETRY_EXC_ERR
	WCFlushErr       WCStatus = C.IBV_WC_WR_FLUSH_ERR
)

// String is the status as ibv_wc_status_str prints it.
func (s WCStatus) String() string {
	return C.GoString(C.ibv_wc_status_str(C.enum_ibv_wc_status(s)))
}

// WCOpcode is a work completion's opcode (enum ibv_wc_opcode).
type WCOpcode uint32

// Work completion opcodes.
const (
	WCSend        WCOpcode = C.IBV_WC_SEND
	WCRDMAWrite   WCOpcode = C.IBV_WC_RDMA_WRITE
	WCRDMARead    WCOpcode = C.IBV_WC_RDMA_READ
	WCCompSwap    WCOpcode = C.IBV_WC_COMP_SWAP
	WCFetchAdd    WCOpcode = C.IBV_WC_FETCH_ADD
	WCRecv        WCOpcode = C.IBV_WC_RECV
	WCRecvRDMAImm WCOpcode = C.IBV_WC_RECV_RDMA_WITH_IMM
)

func (o WCOpcode) String() string {
	switch o {
	case WCSend:
		return "send"
	case WCRDMAWrite:
		return "rdma write"
	case WCRDMARead:
		return "rdma read"
	case WCCompSwap:
		return "compare and swap"
	case WCFetchAdd:
		return "fetch and add"
	case WCRecv:
		return "recv"
	case WCRecvRDMAImm:
		return "recv rdma with immediate"
	}
	return fmt.Sprintf("opcode %d", uint32(o))
}

// WCError is a work completion that did not succeed.
type WCError struct {
	Status    WCStatus
	Opcode    WCOpcode
	WRID      uint64
	VendorErr uint32
}

func (e *WCError) Error() string {
	return fmt.Sprintf("work completion failed: %s (status %d, opcode %s, wr_id %d, vendor error 0x%x)",
		e.Status, uint32(e.Status), e.Opcode, e.WRID, e.VendorErr)
}
