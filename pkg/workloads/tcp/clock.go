package tcp

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// now reads the clock of every measured loop, RDMA and TCP alike (see
// verbs.Now), in nanoseconds: the socket loops' timestamps and the timed
// phase's bounds are on one time line.
func now() int64 { return verbs.Now() }

// onLockedThread runs fn on a goroutine locked to its own OS thread,
// pinned to cpu unless it is -1, and returns fn's error. A pinned thread
// is discarded afterwards (its goroutine exits still locked), so that the
// affinity never leaks to other goroutines.
func onLockedThread(cpu int, fn func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if cpu >= 0 {
			var set unix.CPUSet
			set.Set(cpu)
			if err := unix.SchedSetaffinity(0, &set); err != nil {
				done <- fmt.Errorf("pinning the measuring thread to cpu %d: %w", cpu, err)
				return
			}
		} else {
			defer runtime.UnlockOSThread()
		}
		done <- fn()
	}()
	return <-done
}
