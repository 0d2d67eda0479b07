package workloads

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// onThread runs fn on a goroutine locked to an OS thread of its own,
// pinned to cpu unless it is -1 (checked beforehand: Local.CheckCPUs), or
// else, when node is not empty, free to run on node's CPUs only (NUMA
// placement), and returns fn's error. A pinned thread is thrown away
// afterwards (its goroutine exits still locked), so that its affinity
// never passes to other goroutines.
func onThread(cpu int, node []int, fn func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		var set unix.CPUSet
		switch {
		case cpu >= 0:
			set.Set(cpu)
		case len(node) > 0:
			for _, c := range node {
				set.Set(c)
			}
		default:
			defer runtime.UnlockOSThread()
		}
		if set.Count() > 0 {
			if err := unix.SchedSetaffinity(0, &set); err != nil {
				done <- fmt.Errorf("pinning a measuring thread to cpus %s: %w", cpuSetString(&set), err)
				return
			}
		}
		done <- fn()
	}()
	return <-done
}

// cpuSetString is set in the kernel's list form.
func cpuSetString(set *unix.CPUSet) string {
	var l []int
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			l = append(l, c)
		}
	}
	return FormatCPUList(l)
}

// apartCPUs returns the first CPU of n consecutive ones this process may
// run on, or -1 when there are none. A loopback run pins its client's
// threads and its server's apart this way: both sides busy-poll, and two
// spinning threads that share a CPU take turns at the scheduler's tick, so
// that every iteration of a ping-pong lasts one or two ticks (4 or 8 ms at
// CONFIG_HZ=250) instead of microseconds. The kernel puts them on one CPU
// whenever a third runnable thread takes the other (docs/gate.md, "The 4
// ms mode"). Placed on a NUMA node, the CPUs are the node's (within).
func apartCPUs(n int, within []int) int {
	var set unix.CPUSet
	if n < 2 || unix.SchedGetaffinity(0, &set) != nil {
		return -1
	}
	if len(within) > 0 {
		set.Zero()
		for _, c := range within {
			set.Set(c)
		}
	}
	run := 0
	for c := 0; c < 1024; c++ {
		if !set.IsSet(c) {
			run = 0
			continue
		}
		if run++; run == n {
			return c - n + 1
		}
	}
	return -1
}
