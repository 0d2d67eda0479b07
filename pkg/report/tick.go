package report

import (
	"math"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// tickUS is the scheduler tick of Debian's kernels (CONFIG_HZ=250), the
// kernel of the project's VM and of most Debian and Ubuntu hosts.
const tickUS = 4000

// AtTick reports whether a run's median latency p50, in microseconds,
// sits within 10% of one to four scheduler ticks while its fastest sample
// min took less than half a tick: the mark of a run whose two
// busy-polling sides took turns on one CPU, a tick or two on most
// iterations but not all, instead of measuring the fabric (docs/gate.md,
// "The 4 ms mode"). A transfer that really takes about 4 ms (1 MiB over
// TCP in the VM) has its fastest sample near its median, and is not
// marked. Every view that warns of it uses this rule.
func AtTick(p50, min float64) bool {
	k := math.Round(p50 / tickUS)
	return k >= 1 && k <= 4 && math.Abs(p50-k*tickUS) <= 0.1*tickUS && min < 0.5*tickUS
}

// AtTick is [AtTick] of the statistics; false for nil.
func (l *LatencyStats) AtTick() bool { return l != nil && AtTick(l.P50US(), l.MinUS()) }

// SavedAtTick is [AtTick] of a saved result's or run's latency figures;
// false without a median or a fastest sample.
func SavedAtTick(l *document.Latency) bool {
	return l != nil && l.P50 != nil && l.Min != nil && AtTick(*l.P50, *l.Min)
}

// TickWarning is the warning of a latency at the tick.
const TickWarning = "the median latency sits at the scheduler's tick: the two sides took turns on one CPU " +
	"(a third busy thread took the other); pin them apart with --cpu, or stop what else runs"

// LatencyMeaning says what a latency figure measures, workload by
// workload, wherever latency is shown (the suite's table, the HTML
// report's latency sections): perftest's convention.
const LatencyMeaning = "latency: half the round trip for write, send and TCP; the full round trip for read and atomics"
