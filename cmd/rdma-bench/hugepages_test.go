package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

const nrHugePages = "/proc/sys/vm/nr_hugepages"

// setHugePages sets the kernel's pool of default-size (2 MiB) huge pages
// for the test, and puts it back after. It skips where the pool cannot be
// set (not root, or a kernel without huge pages).
func setHugePages(t *testing.T, n int) {
	t.Helper()
	old, err := os.ReadFile(nrHugePages)
	if err != nil {
		t.Skipf("no huge pages here: %v", err)
	}
	if err := os.WriteFile(nrHugePages, []byte(strconv.Itoa(n)), 0o644); err != nil {
		t.Skipf("cannot set %s (the VM's guest can, as root): %v", nrHugePages, err)
	}
	t.Cleanup(func() { _ = os.WriteFile(nrHugePages, old, 0o644) })
	got, _ := os.ReadFile(nrHugePages)
	if strings.TrimSpace(string(got)) != strconv.Itoa(n) {
		t.Skipf("the kernel gave %s huge pages of the %d asked (memory too fragmented?)", strings.TrimSpace(string(got)), n)
	}
}

// TestHugePages: --use-hugepages backs every registered buffer with 2 MiB
// pages, validates the data and records the page size; with none free it
// is refused before anything is allocated, naming nr_hugepages and how
// many pages the run needs.
func TestHugePages(t *testing.T) {
	testenv.Device(t)
	setHugePages(t, 16)
	got := oneResult(t, run(t, time.Minute, "run", "write_bw", "--loopback", "--use-hugepages", "-s", "64K", "-n", "200", "--validate", "-o", "json"))
	if got.Params.PageBytes != 2<<20 || got.Validation != "passed" {
		t.Errorf("page_bytes %d, validation %q: want 2097152 and passed", got.Params.PageBytes, got.Validation)
	}

	setHugePages(t, 0)
	r := run(t, time.Minute, "run", "write_bw", "--loopback", "--use-hugepages", "-s", "64K", "-n", "200")
	if r.code != 2 || !strings.Contains(r.stderr, "needs 4 huge pages of 2 MiB and 0 are free") ||
		!strings.Contains(r.stderr, "echo 4 > /proc/sys/vm/nr_hugepages") {
		t.Errorf("no huge pages free: exit %d, stderr %s", r.code, r.stderr)
	}
}
