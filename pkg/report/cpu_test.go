package report

import "testing"

func TestSinceArithmetic(t *testing.T) {
	const t0 = int64(1_000_000_000_000)
	start := CPUSample{WallNS: t0, UserNS: 1e9, SysNS: 5e8, Stat: ProcStat{BusyTicks: 1000, IdleTicks: 9000}, Cores: 4}
	end := CPUSample{WallNS: t0 + 2e9, UserNS: 2.5e9, SysNS: 1e9,
		Stat: ProcStat{BusyTicks: 1300, IdleTicks: 9500}, Cores: 4}
	got := end.Since(start)
	want := CPUUsage{
		ProcessPctOfCore: 100, ProcessPctOfAll: 25, // 2 s CPU over 2 s wall
		SystemPctOfAll: 37.5, SystemPctOfCore: 150, // 300 busy of 800 ticks
		UserS: 1.5, SysS: 0.5, WallS: 2, Cores: 4,
	}
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// A tickless kernel's sampled busy time falls short in a bursty run
	// (busy 200 + idle 500 ticks over 2 s on 4 cores, 800 ticks): busy is
	// the wall time's ticks less the measured idle, 300 of 800.
	short := end
	short.Stat.BusyTicks = 1200
	if got := short.Since(start); got.SystemPctOfAll != 37.5 || got.SystemPctOfCore != 150 {
		t.Errorf("lost busy ticks: system %.2f%% of all, %.2f%% of a core; want 37.5, 150", got.SystemPctOfAll, got.SystemPctOfCore)
	}
	// Zero wall time and counters that went backwards give zeros, not NaN.
	if z := start.Since(end); z.ProcessPctOfCore != 0 || z.SystemPctOfAll != 0 || z.UserS != 0 {
		t.Errorf("backwards: %+v", z)
	}
	if z := start.Since(start); z != (CPUUsage{Cores: 4}) {
		t.Errorf("empty interval: %+v", z)
	}
}
