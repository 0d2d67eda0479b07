package report

import "math"

// CPUSample is a point-in-time reading of process and system CPU time,
// taken by the measuring loops at the bounds of a timed part. Take one
// before and one after and call [CPUSample.Since].
type CPUSample struct {
	// WallNS is the time of the reading in nanoseconds (the measuring
	// clock).
	WallNS int64
	// UserNS and SysNS are the process's user and system CPU time, all
	// threads, from getrusage(RUSAGE_SELF).
	UserNS, SysNS int64
	// Stat is the system-wide CPU time from /proc/stat.
	Stat ProcStat
	// Cores is the number of CPUs the figures are shared over.
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

// CPUPair is the usage of both sides of a test. Local is measured over the
// client's timed part; Remote over the server's whole run: costs per
// operation and per byte apply each side's usage rate to the timed span.
type CPUPair struct {
	// Local is this process's usage; nil when not measured.
	Local *CPUUsage `json:"local"`
	// Remote is the peer's usage; nil when unknown or when OneProcess.
	Remote *CPUUsage `json:"remote"`
	// OneProcess is true when both sides ran in this process (loopback):
	// Local then covers both, and there is no Remote.
	OneProcess bool `json:"one_process"`
}

// Since returns the usage between start and s. Counters that went
// backwards count as zero.
func (s CPUSample) Since(start CPUSample) CPUUsage {
	u := CPUUsage{
		UserS: nonNeg(float64(s.UserNS-start.UserNS) / 1e9),
		SysS:  nonNeg(float64(s.SysNS-start.SysNS) / 1e9),
		WallS: nonNeg(float64(s.WallNS-start.WallNS) / 1e9),
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
