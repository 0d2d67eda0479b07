package verbs

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/rdma-bench/rdma-bench/pkg/point"
)

// HugePageBytes is the size of the huge pages that back registered
// buffers with --use-hugepages: 2 MiB, the x86-64 and arm64 default
// (point.HugePageBytes, which the cgo-free readers use).
const HugePageBytes = point.HugePageBytes

// hugePagesDir is the kernel's pool of 2 MiB pages (a variable for tests).
var hugePagesDir = "/sys/kernel/mm/hugepages/hugepages-2048kB"

// HugePagesFor is how many 2 MiB pages a buffer of size bytes takes.
func HugePagesFor(size int) int64 { return int64((size + HugePageBytes - 1) / HugePageBytes) }

// FreeHugePages is how many 2 MiB pages the kernel has free and not
// reserved by another mapping.
func FreeHugePages() (int64, error) {
	free, err := readCount(hugePagesDir + "/free_hugepages")
	if err != nil {
		return 0, err
	}
	resv, err := readCount(hugePagesDir + "/resv_hugepages")
	if err != nil {
		return 0, err
	}
	return max(free-resv, 0), nil
}

func readCount(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("this kernel has no 2 MiB huge pages (%s is missing)", path)
	}
	if err != nil {
		return 0, fmt.Errorf("reading free huge pages: %w", err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", path, err)
	}
	return n, nil
}

// CheckHugePages refuses, before anything is allocated, a run that needs
// more 2 MiB pages than are free, naming the setting that reserves them.
func CheckHugePages(need int64) error {
	free, err := FreeHugePages()
	if err != nil {
		return fmt.Errorf("--use-hugepages: %w", err)
	}
	if free < need {
		return fmt.Errorf("--use-hugepages: the run needs %d huge pages of 2 MiB and %d are free: reserve more (as root: echo %d > /proc/sys/vm/nr_hugepages, where 2 MiB is the default huge page size; else %s/nr_hugepages)",
			need, free, need-free+mustRead(hugePagesDir+"/nr_hugepages"), hugePagesDir)
	}
	return nil
}

func mustRead(path string) int64 {
	n, _ := readCount(path)
	return n
}

// NewHugeBuffer maps size bytes, rounded up to whole 2 MiB pages, of
// zeroed huge pages. Never a fall-back to small pages: without enough free
// huge pages it fails.
func NewHugeBuffer(size int) (*Buffer, error) {
	if size <= 0 {
		return nil, fmt.Errorf("buffer size %d: must be positive", size)
	}
	n := int(HugePagesFor(size)) * HugePageBytes
	mem, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_HUGETLB|unix.MAP_HUGE_2MB)
	if err != nil {
		return nil, fmt.Errorf("mapping %d huge pages of 2 MiB: %w (reserve them in /proc/sys/vm/nr_hugepages)", n/HugePageBytes, err)
	}
	b := &Buffer{mem: mem[:size:size], mapped: n}
	runtime.SetFinalizer(b, (*Buffer).Close)
	return b, nil
}

// PageBytes is the size of the pages backing b.
func (b *Buffer) PageBytes() int {
	if b.mapped > 0 {
		return HugePageBytes
	}
	return unix.Getpagesize()
}
