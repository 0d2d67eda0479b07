package engine

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
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

// PrefaultMappings makes the pages of every file this process has mapped
// (the program and its shared libraries) resident and mapped, best effort.
// Go code that first runs during a timed loop, such as the goroutine that
// waits for the peer's "done" or a stack being grown, otherwise takes a
// page fault per page of code and tables it touches; where the program
// lives on a network or virtual file system (the soft-RoCE VM reads it
// over 9p) each is a major fault of hundreds of microseconds, and a run of
// them lands inside short runs. Device mappings (/dev) and anonymous
// memory are left alone. Kernels before 5.14 lack MADV_POPULATE_READ; they
// get MADV_WILLNEED, which reads the files into the page cache so that the
// faults left are minor ones.
//
// A process populates each mapping once: a later call (the next
// measurement of a gate's worker, or the one after a device's provider
// library was loaded) populates only the mappings new since the last.
// Reading a program over 9p under a loaded emulator takes seconds, so
// the first call comes before a peer waits on this side (RunClient
// before it dials, Server.Serve before it accepts): CI of 2026-11-29 had
// a loopback server give up at the ready barrier after 10 s.
func PrefaultMappings() {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	var ranges [][2]uintptr
	for _, line := range strings.Split(string(maps), "\n") {
		if start, end, ok := fileMapping(line); ok {
			ranges = append(ranges, [2]uintptr{start, end})
		}
	}
	prefaulted.Lock()
	defer prefaulted.Unlock()
	for _, r := range ranges {
		if slices.Contains(prefaulted.ranges, r) {
			continue
		}
		if madvise(r[0], r[1]-r[0], unix.MADV_POPULATE_READ) != nil {
			_ = madvise(r[0], r[1]-r[0], unix.MADV_WILLNEED)
		}
	}
	prefaulted.ranges = ranges
}

// prefaulted are the file mappings the last PrefaultMappings populated.
var prefaulted struct {
	sync.Mutex
	ranges [][2]uintptr
}

// fileMapping parses one /proc/self/maps line ("start-end perms offset dev
// inode path") and reports the range of a readable mapping of a regular
// file.
func fileMapping(line string) (start, end uintptr, ok bool) {
	f := strings.Fields(line)
	if len(f) < 6 || !strings.HasPrefix(f[5], "/") || strings.HasPrefix(f[5], "/dev/") || f[1][0] != 'r' {
		return 0, 0, false
	}
	lo, hi, found := strings.Cut(f[0], "-")
	if !found {
		return 0, 0, false
	}
	s, err1 := strconv.ParseUint(lo, 16, 64)
	e, err2 := strconv.ParseUint(hi, 16, 64)
	if err1 != nil || err2 != nil || e <= s {
		return 0, 0, false
	}
	return uintptr(s), uintptr(e), true
}

func madvise(addr, n uintptr, advice int) error {
	if _, _, e := unix.Syscall(unix.SYS_MADVISE, addr, n, uintptr(advice)); e != 0 {
		return e
	}
	return nil
}
