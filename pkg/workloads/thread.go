package workloads

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// onThread runs fn on a goroutine locked to an OS thread of its own,
// pinned to cpu unless it is -1 (checked beforehand: Local.CheckCPUs), and
// returns fn's error. A pinned thread is thrown away afterwards (its
// goroutine exits still locked), so that its affinity never passes to
// other goroutines.
func onThread(cpu int, fn func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if cpu >= 0 {
			var set unix.CPUSet
			set.Set(cpu)
			if err := unix.SchedSetaffinity(0, &set); err != nil {
				done <- fmt.Errorf("pinning a measuring thread to cpu %d: %w", cpu, err)
				return
			}
		} else {
			defer runtime.UnlockOSThread()
		}
		done <- fn()
	}()
	return <-done
}
