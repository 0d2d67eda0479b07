package report

import (
	"math"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

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

// CPUUsage is the CPU usage over an interval between two samples, and
// CPUPair both sides' (pkg/document owns their layout). Local is measured
// over the client's timed part; Remote over the server's whole run: costs
// per operation and per byte apply each side's usage rate to the timed
// span.
type (
	CPUUsage = document.CPUUsage
	CPUPair  = document.CPUPair
)

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
	if all, idle := machineTicks(s.Stat, start.Stat, u.WallS, u.Cores); all > 0 {
		u.SystemPctOfAll = min(max((all-idle)/all*100, 0), 100)
		u.SystemPctOfCore = u.SystemPctOfAll * float64(u.Cores)
	}
	return u
}

// machineTicks returns the CPUs' whole time over an interval and the idle
// part of it, in ticks. On a tickless kernel /proc/stat's idle time is
// measured (the kernel times each idle spell) while its busy time is
// sampled at the timer tick, which a CPU that is busy in spells shorter
// than a tick and idle in between often misses: a ping-pong benchmark's
// busy time came out 14% short of the wall clock's, and the machine
// looked less busy than rdma-bench alone. So busy is the whole less idle,
// and the whole is the larger of two lower bounds of it: the ticks
// counted, and the interval's wall time on the cores (no more than the
// machine has).
func machineTicks(now, before ProcStat, wallS float64, cores int) (all, idle float64) {
	busy := float64(tickDelta(now.BusyTicks, before.BusyTicks))
	idle = float64(tickDelta(now.IdleTicks, before.IdleTicks))
	return max(busy+idle, wallS*float64(cores)*UserHZ), idle
}

// CPUSeconds returns the process CPU time (user + system) in seconds.
func cpuSeconds(u CPUUsage) float64 { return u.UserS + u.SysS }

// finite reports whether every figure of u is a finite number.
func finiteUsage(u CPUUsage) bool {
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
