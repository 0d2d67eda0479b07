package gate

import "math"

// tickUS is the scheduler tick of Debian's kernels (CONFIG_HZ=250), the
// kernel of the project's VM and of most Debian and Ubuntu hosts.
const tickUS = 4000

// TickBound reports whether a median latency, in microseconds, sits within
// 6% of one to four scheduler ticks: the mark of a run whose two sides
// took turns on one CPU, one tick per iteration, instead of measuring the
// fabric (docs/gate.md, "The 4 ms mode").
func TickBound(us float64) bool {
	k := math.Round(us / tickUS)
	return k >= 1 && k <= 4 && math.Abs(us-k*tickUS) <= 0.06*tickUS
}
