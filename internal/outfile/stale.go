package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// tempMark sits between a pending file's name and its owner's process id:
// .NAME.rdma-bench-PID-RANDOM.tmp
const tempMark = ".rdma-bench-"

// tempPattern is the os.CreateTemp pattern of dest's pending file.
func tempPattern(dest string) string {
	return "." + filepath.Base(dest) + tempMark + strconv.Itoa(os.Getpid()) + "-*.tmp"
}

// removeStale removes dest's pending files whose process is gone: the
// leftovers of a killed run. A live process's pending file is kept.
func removeStale(dest string) {
	dir, prefix := filepath.Dir(dest), "."+filepath.Base(dest)+tempMark
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(n, prefix) || !strings.HasSuffix(n, ".tmp") {
			continue
		}
		pid, _, ok := strings.Cut(strings.TrimPrefix(n, prefix), "-")
		if p, err := strconv.Atoi(pid); ok && err == nil && p > 0 && !alive(p) {
			_ = os.Remove(filepath.Join(dir, n))
		}
	}
}

// alive says whether process pid exists on this host.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
