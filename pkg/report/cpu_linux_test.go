package report

import (
	"runtime"
	"syscall"
	"testing"
	"time"
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

// TestSampleCPUMeasuresBusyThread burns 300 ms of CPU on one locked thread
// and checks that SampleCPU accounts for it. On an idle machine that is one
// core for 300 ms, so ProcessPctOfCore must read 50..150; on a busy
// machine the thread gets less than a core, and the band is scaled to the
// share it got (measured independently: its own CPU time over the wall
// time the test saw).
func TestSampleCPUMeasuresBusyThread(t *testing.T) {
	if testing.Short() {
		t.Skip("burns CPU")
	}
	const burn = 300 * time.Millisecond
	before, err := SampleCPU()
	if err != nil {
		t.Fatal(err)
	}
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
	after, err := SampleCPU()
	if err != nil {
		t.Fatal(err)
	}
	u := after.Since(before)
	share := used.Seconds() / wall.Seconds() * 100 // % of a core the thread got
	t.Logf("thread burned %v in %v wall (%.1f%% of a core); usage %+v", used, wall, share, u)

	if cpu := u.CPUSeconds(); cpu < used.Seconds()*0.95 || cpu > used.Seconds()*1.5+0.05 {
		t.Errorf("process CPU = %.3f s, want %.3f s plus a little runtime overhead", cpu, used.Seconds())
	}
	if lo, hi := share*0.5, share*1.5; u.ProcessPctOfCore < lo || u.ProcessPctOfCore > hi {
		t.Errorf("process = %.1f%% of a core, want %.0f..%.0f", u.ProcessPctOfCore, lo, hi)
	}
	if u.WallS < wall.Seconds() {
		t.Errorf("wall = %.3f s, shorter than the burn's %.3f s", u.WallS, wall.Seconds())
	}
	if u.Cores < 1 || !near(u.ProcessPctOfAll, u.ProcessPctOfCore/float64(u.Cores), 1e-12) {
		t.Errorf("cores %d, pct of all %.2f", u.Cores, u.ProcessPctOfAll)
	}
	// The machine was at least about as busy as this process (/proc/stat
	// ticks are coarse: 10 ms).
	if u.SystemPctOfCore < u.ProcessPctOfCore*0.5 || u.SystemPctOfCore > float64(100*u.Cores)+1e-9 {
		t.Errorf("system = %.1f%% of a core, want %.0f..%d", u.SystemPctOfCore, u.ProcessPctOfCore*0.5, 100*u.Cores)
	}
}
