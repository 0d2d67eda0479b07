package verbs

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// PD is a protection domain (struct ibv_pd).
type PD struct {
	pd  *C.struct_ibv_pd
	ctx *Context
}

// NewPD allocates a protection domain on c.
func (c *Context) NewPD() (*PD, error) {
	pd, err := C.ibv_alloc_pd(c.ctx)
	if pd == nil {
		return nil, verbErr("ibv_alloc_pd", -1, err)
	}
	p := &PD{pd: pd, ctx: c}
	runtime.SetFinalizer(p, (*PD).Close)
	return p, nil
}

// Close deallocates the protection domain. Safe on nil and more than once.
func (p *PD) Close() error {
	if p == nil || p.pd == nil {
		return nil
	}
	runtime.SetFinalizer(p, nil)
	ret, err := C.ibv_dealloc_pd(p.pd)
	p.pd = nil
	if ret != 0 {
		return verbErr("ibv_dealloc_pd", ret, err)
	}
	return nil
}

// Access is a set of memory region and QP access flags (enum ibv_access_flags).
type Access uint32

// Access flags. Grant only what a workload needs: a WRITE target needs
// AccessLocalWrite|AccessRemoteWrite, a READ source AccessRemoteRead, an
// atomic target AccessLocalWrite|AccessRemoteAtomic.
const (
	AccessLocalWrite   Access = C.IBV_ACCESS_LOCAL_WRITE
	AccessRemoteWrite  Access = C.IBV_ACCESS_REMOTE_WRITE
	AccessRemoteRead   Access = C.IBV_ACCESS_REMOTE_READ
	AccessRemoteAtomic Access = C.IBV_ACCESS_REMOTE_ATOMIC
)

// Buffer is page-aligned memory outside the Go heap (an anonymous mapping),
// so the NIC and C code may hold pointers into it.
type Buffer struct {
	mem    []byte
	mapped int // the mapping's length when it is of huge pages, else 0
}

// NewBuffer maps size bytes of zeroed, page-aligned memory.
func NewBuffer(size int) (*Buffer, error) {
	if size <= 0 {
		return nil, fmt.Errorf("buffer size %d: must be positive", size)
	}
	pg := unix.Getpagesize()
	n := (size + pg - 1) / pg * pg
	mem, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("mapping %d bytes: %w", n, err)
	}
	b := &Buffer{mem: mem[:size:size]}
	runtime.SetFinalizer(b, (*Buffer).Close)
	return b, nil
}

// Bytes is the buffer's memory. It must not be used after Close.
func (b *Buffer) Bytes() []byte { return b.mem }

// Addr is the buffer's virtual address.
func (b *Buffer) Addr() uint64 { return uint64(uintptr(unsafe.Pointer(&b.mem[0]))) }

// Len is the buffer's length in bytes.
func (b *Buffer) Len() int { return len(b.mem) }

// Close unmaps the buffer. Safe on nil and more than once.
func (b *Buffer) Close() error {
	if b == nil || b.mem == nil {
		return nil
	}
	runtime.SetFinalizer(b, nil)
	pg := unix.Getpagesize()
	n := (cap(b.mem) + pg - 1) / pg * pg
	if b.mapped > 0 {
		n = b.mapped
	}
	full := unsafe.Slice(&b.mem[0], n)
	b.mem = nil
	if err := unix.Munmap(full); err != nil {
		return fmt.Errorf("unmapping buffer: %w", err)
	}
	return nil
}

// MR is a memory region (struct ibv_mr) registered over a Buffer.
type MR struct {
	mr  *C.struct_ibv_mr
	buf *Buffer
}

// RegisterMR registers buf with the given access. The buffer must outlive
// the region.
func (p *PD) RegisterMR(buf *Buffer, access Access) (*MR, error) {
	mr, err := C.ibv_reg_mr(p.pd, unsafe.Pointer(&buf.mem[0]), C.size_t(len(buf.mem)), C.int(access))
	if mr == nil {
		return nil, verbErr(fmt.Sprintf("ibv_reg_mr(%d bytes)", len(buf.mem)), -1, err)
	}
	m := &MR{mr: mr, buf: buf}
	runtime.SetFinalizer(m, (*MR).Close)
	return m, nil
}

// LKey is the region's local key.
func (m *MR) LKey() uint32 { return uint32(m.mr.lkey) }

// RKey is the region's remote key.
func (m *MR) RKey() uint32 { return uint32(m.mr.rkey) }

// Addr is the region's start address.
func (m *MR) Addr() uint64 { return m.buf.Addr() }

// Len is the region's length.
func (m *MR) Len() int { return m.buf.Len() }

// Buffer is the memory the region covers.
func (m *MR) Buffer() *Buffer { return m.buf }

// Close deregisters the region (not its buffer). Safe on nil and twice.
func (m *MR) Close() error {
	if m == nil || m.mr == nil {
		return nil
	}
	runtime.SetFinalizer(m, nil)
	ret, err := C.ibv_dereg_mr(m.mr)
	m.mr = nil
	if ret != 0 {
		return verbErr("ibv_dereg_mr", ret, err)
	}
	return nil
}
