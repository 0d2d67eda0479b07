package engine

/*
#include "clock.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// ClockMode selects the clock of the measured loops (see clock.h).
type ClockMode int

// Clock modes.
const (
	// ClockAuto reads CLOCK_MONOTONIC_RAW through the vDSO, or, where
	// that is a system call (a clocksource without vDSO support, such as
	// hpet in a QEMU TCG guest), a TSC calibrated against it.
	ClockAuto ClockMode = C.RB_CLOCK_AUTO
	// ClockMonotonic always reads CLOCK_MONOTONIC_RAW.
	ClockMonotonic ClockMode = C.RB_CLOCK_MONO
	// ClockTSC reads the TSC (x86-64 with rdtscp), calibrated.
	ClockTSC ClockMode = C.RB_CLOCK_TSC
)

// ClockNames are the --clock values, by mode.
var ClockNames = map[string]ClockMode{"auto": ClockAuto, "monotonic": ClockMonotonic, "tsc": ClockTSC}

// ParseClock maps a --clock value to its mode.
func ParseClock(s string) (ClockMode, error) {
	if m, ok := ClockNames[strings.ToLower(s)]; ok {
		return m, nil
	}
	return 0, fmt.Errorf("unknown clock %q: want auto, monotonic or tsc", s)
}

// Clock describes the clock in use.
type Clock struct {
	// Source is "monotonic_raw" or "tsc".
	Source string
	// Why says how the source was chosen.
	Why string
	// SampleNS is the cost of one latency sample (timestamp and store):
	// the median of sampleBatches batches of sampleBatch samples each, so
	// that a preemption or a slow first pass does not decide it.
	SampleNS float64
}

var clock struct {
	sync.Mutex
	set  bool
	mode ClockMode
	info Clock
}

// SetClock chooses the clock of every later loop, calibrating the TSC if
// it is chosen (about 100 ms). It must not be called while a loop runs.
// ClockTSC where the TSC cannot be used is an error.
func SetClock(mode ClockMode) (Clock, error) {
	clock.Lock()
	defer clock.Unlock()
	if clock.set && clock.mode == mode {
		return clock.info, nil
	}
	var got C.int
	var why [256]C.char
	// Calibration pins the calling thread to each CPU in turn; a thread
	// of its own keeps that away from other goroutines.
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		got = C.rb_clock_init(C.int(mode), &why[0], C.int(len(why)))
		close(done)
	}()
	<-done
	reason := C.GoString((*C.char)(unsafe.Pointer(&why[0])))
	if mode == ClockTSC && ClockMode(got) != ClockTSC {
		clock.set = false
		return Clock{}, fmt.Errorf("clock tsc unavailable: %s", strings.TrimPrefix(reason, "TSC refused: "))
	}
	info := Clock{Source: "monotonic_raw", Why: reason}
	if ClockMode(got) == ClockTSC {
		info.Source = "tsc"
	}
	info.SampleNS = medianSampleCostNS()
	clock.set, clock.mode, clock.info = true, mode, info
	return info, nil
}

// CurrentClock returns the clock in use, choosing it (ClockAuto) on first
// use.
func CurrentClock() Clock {
	clock.Lock()
	set, info := clock.set, clock.info
	clock.Unlock()
	if set {
		return info
	}
	info, _ = SetClock(ClockAuto) // auto falls back, never fails
	return info
}

// MaxRate is the highest rate, in operations per second, an open loop
// can schedule on the current clock: it reads the clock at least twice
// per operation (to find it due, and at its post), so one operation
// cannot take less than two samples.
func MaxRate() int {
	ns := CurrentClock().SampleNS
	if ns <= 0 {
		ns = 1
	}
	return int(1e9 / (2 * ns))
}

// Now reads the measuring clock in nanoseconds (CLOCK_MONOTONIC_RAW's
// time line, whichever source reads it).
func Now() int64 { return int64(C.rb_now_ns()) }

// The batches medianSampleCostNS times.
const (
	sampleBatches = 31
	sampleBatch   = 1000
)

// medianSampleCostNS is the median cost of one sample over several batches.
func medianSampleCostNS() float64 {
	costs := make([]float64, sampleBatches)
	for i := range costs {
		costs[i] = SampleCostNS(sampleBatch)
	}
	slices.Sort(costs)
	return costs[len(costs)/2]
}

// SampleCostNS measures the cost in nanoseconds of one latency sample (a
// timestamp and its store), averaged over n samples.
func SampleCostNS(n int) float64 {
	return float64(C.rb_clock_cost_ps(C.uint64_t(n))) / 1000
}
