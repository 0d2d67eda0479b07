package display

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MinSamples is how many samples the percentile q (such as 99.9) needs
// before it is more than the largest sample: 100 for p99, 1,000 for
// p99.9, 10,000 for p99.99.
func MinSamples(q float64) int64 {
	if q >= 100 {
		return math.MaxInt64
	}
	return int64(math.Ceil(100/(100-q) - 1e-9))
}

// Thin tells whether the percentile q from n samples is beyond what n
// samples resolve: it is then the largest sample, or near it.
func Thin(q float64, n int64) bool { return n > 0 && n < MinSamples(q) }

// The marks of a cell, explained below every table that has them.
const (
	// ThinMark follows a percentile from fewer samples than it needs.
	ThinMark = "*"
	// UncleanMark follows the name of a row whose run was not clean.
	UncleanMark = "!"
)

// What the marks say, written once: a table's footnotes ([ThinNote],
// [UncleanNote]), the notes of a view without marks ([ThinNoteFor],
// [UncleanNoteFor]) and a count of them ([ThinWhat], [UncleanWhat]: "6 of
// 6 write_bw pairs not clean") are made of these words.
const (
	ThinWhat    = "thin"
	thinWhy     = "a percentile from fewer samples than it needs (p99: 100, p99.9: 1,000, p99.99: 10,000): it is the largest sample, or near it"
	UncleanWhat = "not clean"
	uncleanWhy  = "the device's error counters moved during the run (retransmissions, drops): its figures include the recovery"
)

// ThinNote explains [ThinMark].
const ThinNote = ThinMark + " " + thinWhy

// UncleanNote explains [UncleanMark]; the notes that follow name the
// counters that moved.
const UncleanNote = UncleanMark + " " + UncleanWhat + ": " + uncleanWhy

// ThinLegend and UncleanLegend name the caveats in a chart's legend,
// under the tables' marks, so that a chart beside a table (the HTML
// report) reads with its footnotes ([ThinNote], [UncleanNote]); short
// enough to keep the legend right of the chart.
const (
	ThinLegend    = ThinMark + " percentile from too few samples"
	UncleanLegend = UncleanMark + " run " + UncleanWhat
)

// UncleanNoteFor is [UncleanNote] said of the row name, for a view that
// has no marks: "not clean: write_bw 65536 bytes: the device's error
// counters moved ..."; "" when its run was clean or its counters unread.
func UncleanNoteFor(name string, clean *bool) string {
	if !Unclean(clean) {
		return ""
	}
	return UncleanWhat + ": " + name + ": " + uncleanWhy
}

// ThinNoteFor is [ThinNote] said of the row name, for a view that has no
// marks, naming which of the percentiles qs it shows are from fewer of
// its n samples than they need: "thin: write_lat 64 bytes: p99, p99.9 of
// 4 samples: a percentile from fewer samples ..."; "" when none is.
func ThinNoteFor(name string, n int64, qs ...float64) string {
	var thin []string
	for _, q := range qs {
		if Thin(q, n) {
			thin = append(thin, "p"+strconv.FormatFloat(q, 'f', -1, 64))
		}
	}
	if len(thin) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s: %s of %d samples: %s", ThinWhat, name, strings.Join(thin, ", "), n, thinWhy)
}

// Percentile formats the percentile q of n samples, v microseconds, with
// prec decimals, marked when n is too few for q.
func Percentile(v float64, q float64, n int64, prec int) string {
	s := Figure(v, prec)
	if Thin(q, n) {
		s += ThinMark
	}
	return s
}

// Marked is a figure's cell marked with its own run's caveats, for a view
// whose every cell is a run of its own (fabric's matrices, a pair a
// cell): [ThinMark] after a percentile from too few samples, then
// [UncleanMark] after a space, as after a row's name, when the run was
// not clean: "2.000* !". [Footnotes] explains both.
func Marked(s string, thin, unclean bool) string {
	if thin {
		s += ThinMark
	}
	if unclean {
		s += " " + UncleanMark
	}
	return s
}

// Unclean tells whether a run's counters say it was not clean (false
// when they were not read).
func Unclean(clean *bool) bool { return clean != nil && !*clean }

// RowName is a row's first cell, marked when its run was not clean.
func RowName(name string, clean *bool) string {
	if Unclean(clean) {
		return name + " " + UncleanMark
	}
	return name
}

// Footnotes are the explanations of the marks the cells of a table use,
// one line each, in the order of the marks.
func Footnotes(cells [][]string) []string {
	var thin, unclean bool
	for _, row := range cells {
		for _, c := range row {
			thin = thin || strings.HasSuffix(strings.TrimSuffix(c, " "+UncleanMark), ThinMark)
			unclean = unclean || strings.HasSuffix(c, " "+UncleanMark)
		}
	}
	var out []string
	if unclean {
		out = append(out, UncleanNote)
	}
	if thin {
		out = append(out, ThinNote)
	}
	return out
}

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

// TickWarning is the warning of a latency at the tick.
const TickWarning = "the median latency sits at the scheduler's tick: the two sides took turns on one CPU " +
	"(a third busy thread took the other); pin them apart with --cpu, or stop what else runs"

// LatencyMeaning says what a latency figure measures, workload by
// workload, wherever latency is shown (the suite's table, the HTML
// report's latency sections): perftest's convention.
const LatencyMeaning = "latency: half the round trip for write, send and TCP; the full round trip for read and atomics"
