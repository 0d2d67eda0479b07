package report

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"time"
)

// CPUSample is a point-in-time reading of process and system CPU time.
// Take one before and one after a measurement and call [CPUSample.Since].
type CPUSample struct {
	// Wall is the time of the reading (with its monotonic clock reading).
	Wall time.Time
	// UserNS and SysNS are the process's user and system CPU time, all
	// threads, from getrusage(RUSAGE_SELF).
	UserNS, SysNS int64
	// Stat is the system-wide CPU time from /proc/stat.
	Stat ProcStat
	// Cores is the number of online CPUs (from /proc/stat, else the
	// number of CPUs usable by the process).
	Cores int
}

// CPUUsage is the CPU usage over an interval between two samples.
type CPUUsage struct {
	// ProcessPctOfCore is process CPU time over wall time, in percent of
	// one core: 100 means one core fully busy, 200 two cores.
	ProcessPctOfCore float64 `json:"process_pct_of_core"`
	// ProcessPctOfAll is ProcessPctOfCore divided by Cores.
	ProcessPctOfAll float64 `json:"process_pct_of_all"`
	// SystemPctOfCore is the whole machine's busy time in percent of one
	// core (100*Cores means every core busy).
	SystemPctOfCore float64 `json:"system_pct_of_core"`
	// SystemPctOfAll is the whole machine's busy share, 0..100.
	SystemPctOfAll float64 `json:"system_pct_of_all"`
	// UserS and SysS are the process's user and system CPU seconds.
	UserS float64 `json:"user_s"`
	SysS  float64 `json:"sys_s"`
	// WallS is the interval's wall-clock length in seconds.
	WallS float64 `json:"wall_s"`
	// Cores is the number of online CPUs.
	Cores int `json:"cores"`
}

// CPUPair is the usage of both sides of a test.
type CPUPair struct {
	// Local is this process's usage; nil when not measured.
	Local *CPUUsage `json:"local"`
	// Remote is the peer's usage; nil when unknown.
	Remote *CPUUsage `json:"remote"`
}

// SampleCPU reads the process's CPU time, /proc/stat and the wall clock.
func SampleCPU() (CPUSample, error) {
	var s CPUSample
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return CPUSample{}, fmt.Errorf("sample cpu: %w", err)
	}
	if s.Stat, err = ParseProcStat(data); err != nil {
		return CPUSample{}, fmt.Errorf("sample cpu: %w", err)
	}
	if s.UserNS, s.SysNS, err = processTimes(); err != nil {
		return CPUSample{}, fmt.Errorf("sample cpu: %w", err)
	}
	s.Wall = time.Now()
	s.Cores = s.Stat.CPUs
	if s.Cores <= 0 {
		s.Cores = runtime.NumCPU()
	}
	return s, nil
}

// Since returns the usage between start and s. Counters that went
// backwards count as zero.
func (s CPUSample) Since(start CPUSample) CPUUsage {
	u := CPUUsage{
		UserS: nonNeg(float64(s.UserNS-start.UserNS) / 1e9),
		SysS:  nonNeg(float64(s.SysNS-start.SysNS) / 1e9),
		WallS: nonNeg(s.Wall.Sub(start.Wall).Seconds()),
		Cores: s.Cores,
	}
	if u.WallS > 0 {
		u.ProcessPctOfCore = (u.UserS + u.SysS) / u.WallS * 100
		if u.Cores > 0 {
			u.ProcessPctOfAll = u.ProcessPctOfCore / float64(u.Cores)
		}
	}
	busy := tickDelta(s.Stat.BusyTicks, start.Stat.BusyTicks)
	idle := tickDelta(s.Stat.IdleTicks, start.Stat.IdleTicks)
	if busy+idle > 0 {
		u.SystemPctOfAll = float64(busy) / float64(busy+idle) * 100
		u.SystemPctOfCore = u.SystemPctOfAll * float64(u.Cores)
	}
	return u
}

// CPUSeconds returns the process CPU time (user + system) in seconds.
func (u CPUUsage) CPUSeconds() float64 { return u.UserS + u.SysS }

// MicrosPerOp returns process CPU µs per operation; false when ops is 0.
func (u CPUUsage) MicrosPerOp(ops uint64) (float64, bool) {
	if ops == 0 {
		return 0, false
	}
	return u.CPUSeconds() * 1e6 / float64(ops), true
}

// SecondsPerGB returns process CPU seconds per 10^9 bytes moved; false when
// bytes is 0.
func (u CPUUsage) SecondsPerGB(bytes uint64) (float64, bool) {
	if bytes == 0 {
		return 0, false
	}
	return u.CPUSeconds() / (float64(bytes) / 1e9), true
}

// finite reports whether every figure of u is a finite number.
func (u CPUUsage) finite() bool {
	for _, v := range []float64{u.ProcessPctOfCore, u.ProcessPctOfAll, u.SystemPctOfCore,
		u.SystemPctOfAll, u.UserS, u.SysS, u.WallS} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

func tickDelta(now, before uint64) uint64 {
	if now < before {
		return 0
	}
	return now - before
}

func nonNeg(v float64) float64 { return max(v, 0) }
