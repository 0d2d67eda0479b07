package report

import "math"

// tickUS is the scheduler tick of Debian's kernels (CONFIG_HZ=250), the
// kernel of the project's VM and of most Debian and Ubuntu hosts.
const tickUS = 4000

// AtTick reports whether a median latency, in microseconds, sits within
// 10% of one to four scheduler ticks: the mark of a run whose two
// busy-polling sides took turns on one CPU, a tick or two per iteration,
// instead of measuring the fabric (docs/gate.md, "The 4 ms mode"). Every
// view that warns of it uses this rule.
func AtTick(us float64) bool {
	k := math.Round(us / tickUS)
	return k >= 1 && k <= 4 && math.Abs(us-k*tickUS) <= 0.1*tickUS
}

// TickWarning is the warning of a latency at the tick.
const TickWarning = "the median latency sits at the scheduler's tick: the two sides took turns on one CPU " +
	"(a third busy thread took the other); pin them apart with --cpu, or stop what else runs"
