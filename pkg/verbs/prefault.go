package verbs

import (
	"os"
	"unsafe"
)

// prefault writes every page of n bytes at p, so that the measured loops
// never take a first-touch page fault in their sample buffers: calloc
// hands out fresh mappings untouched (a large one comes straight from
// mmap), and a fault inside a timed iteration costs tens of microseconds
// in a VM, several of them in the first samples of every run.
func prefault(p unsafe.Pointer, n int) {
	if p == nil || n <= 0 {
		return
	}
	mem := unsafe.Slice((*byte)(p), n)
	pg := os.Getpagesize()
	for i := 0; i < n; i += pg {
		mem[i] = 0
	}
	mem[n-1] = 0
}
