package engine_test

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/engine"
)

// rusageThread is Linux's RUSAGE_THREAD: the calling thread only.
const rusageThread = 1

func threadCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		t.Error(err)
		return time.Hour // stops the burn loop
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procSelfCPU is this process's utime plus stime from /proc/self/stat.
func procSelfCPU(t *testing.T) time.Duration {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ 100
}

// TestSampleCPUMeasuresBusyThread burns 300 ms of CPU on one locked thread
// and checks that two CPU readings account for it: the process's CPU time
// (at least what the thread burned, measured independently with
// RUSAGE_THREAD), the wall time on the measuring clock, and the machine's
// /proc/stat line.
func TestSampleCPUMeasuresBusyThread(t *testing.T) {
	if testing.Short() {
		t.Skip("burns CPU")
	}
	const burn = 300 * time.Millisecond
	before, procBefore := engine.SampleCPU(), procSelfCPU(t)
	wallStart := time.Now()
	done := make(chan time.Duration)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		start := threadCPU(t)
		var x uint64
		for {
			for i := 0; i < 100_000; i++ {
				x = x*6364136223846793005 + 1
			}
			if used := threadCPU(t) - start; used >= burn {
				done <- used
				return
			}
		}
	}()
	used := <-done
	wall := time.Since(wallStart)
	after, procAfter := engine.SampleCPU(), procSelfCPU(t)
	cpu := time.Duration(after.UserNS - before.UserNS + after.SysNS - before.SysNS)
	// The kernel's own accounting of this process, /proc/self/stat's
	// utime and stime, in 10 ms ticks.
	if proc := procAfter - procBefore; cpu < proc-20*time.Millisecond || cpu > proc+20*time.Millisecond {
		t.Errorf("process CPU %v by the readings, %v by /proc/self/stat", cpu, proc)
	}
	t.Logf("thread burned %v in %v wall; the process %v in %v", used, wall, cpu, time.Duration(after.WallNS-before.WallNS))
	if cpu < used*95/100 || cpu > used*3/2+50*time.Millisecond {
		t.Errorf("process CPU %v, want %v plus a little runtime overhead", cpu, used)
	}
	if w := time.Duration(after.WallNS - before.WallNS); w < wall || w > wall+time.Second {
		t.Errorf("wall %v on the measuring clock, the test saw %v", w, wall)
	}
	for _, m := range []engine.CPUMark{before, after} {
		if !strings.HasPrefix(m.ProcStatCPU, "cpu ") {
			t.Errorf("/proc/stat line %q, want the aggregate \"cpu \" line", m.ProcStatCPU)
		}
	}
}
