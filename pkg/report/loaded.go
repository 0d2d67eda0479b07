package report

import (
	"fmt"
	"slices"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// Loaded is what the loaders of a loaded-latency run (--loaders) streamed
// beside its latency loop, on the same device: Loaders QPs, each on a
// thread of its own, running Workload (the latency workload's bandwidth
// counterpart) unlimited.
type Loaded struct {
	Loaders  int
	Workload string
	// Ops is the operations the loaders completed in their timed spans;
	// ElapsedNS is from the first loader's first post to the last one's
	// last completion.
	Ops       uint64
	ElapsedNS int64
}

// Gbps is the loaders' bandwidth together, for messages of size bytes;
// 0 when nothing was timed.
func (l *Loaded) Gbps(size int) float64 {
	if l == nil || l.ElapsedNS <= 0 {
		return 0
	}
	return float64(l.Ops) * float64(size) * 8 / float64(l.ElapsedNS)
}

// mergeLoaded is the loaders' figures of several runs of one point.
func mergeLoaded(runs []*Result) *Loaded {
	var m *Loaded
	for _, r := range runs {
		l := r.Loaded
		if l == nil {
			continue
		}
		if m == nil {
			m = &Loaded{Loaders: l.Loaders, Workload: l.Workload}
		}
		m.Ops += l.Ops
		m.ElapsedNS += l.ElapsedNS
	}
	return m
}

// KneeLoadedP99 is the loaded-latency knee's rule: the first level whose
// p99 exceeds this many times the lowest level's (the unloaded one, with
// level 0 in the sweep).
const KneeLoadedP99 = 2.0

// LoadedCurve is one point's latency against its loaders: its results at
// several loader levels (ascending), all at one offered rate.
type LoadedCurve struct {
	Workload  string
	SizeBytes int
	RateOPS   int
	Points    []*Result
	// Knee is the index in Points of the knee; -1 when there is none up
	// to the most loaders. Why says what crossed its threshold there.
	Knee int
	Why  string
}

// Levels are the curve's loader counts, in order.
func (c *LoadedCurve) Levels() []int {
	out := make([]int, len(c.Points))
	for i, r := range c.Points {
		out[i] = r.Params.Loaders
	}
	return out
}

// LoadedCurves finds every open-loop point measured at two or more
// loader levels among results and judges its curve. Results that differ
// in nothing but their loaders (and iterations) are one curve.
func LoadedCurves(results []*Result) []*LoadedCurve {
	var curves []*LoadedCurve
	byKey := map[string]*LoadedCurve{}
	loaded := map[string]bool{}
	for _, r := range results {
		if !isLatency(r) || r.Open == nil {
			continue
		}
		key := fmt.Sprintf("%s|%d|%d", groupKey(r), r.SizeBytes, r.Rate)
		loaded[key] = loaded[key] || r.Params.Loaders > 0
		c, ok := byKey[key]
		if !ok {
			c = &LoadedCurve{Workload: r.Workload, SizeBytes: r.SizeBytes, RateOPS: r.Rate}
			byKey[key] = c
			curves = append(curves, c)
		}
		c.Points = append(c.Points, r)
	}
	var out []*LoadedCurve
	for _, c := range curves {
		key := fmt.Sprintf("%s|%d|%d", groupKey(c.Points[0]), c.SizeBytes, c.RateOPS)
		if len(c.Points) < 2 || !loaded[key] {
			continue
		}
		slices.SortStableFunc(c.Points, func(a, b *Result) int { return a.Params.Loaders - b.Params.Loaders })
		c.judge()
		out = append(out, c)
	}
	return out
}

// judge finds the knee (kneeOf): the first level whose p99 is over
// KneeLoadedP99 times the lowest level's, or whose latency loop fell short
// of its offered rate.
func (c *LoadedCurve) judge() {
	c.Knee, c.Why = kneeOf(c.Points, KneeLoadedP99, fmt.Sprintf("the %d-loader level", c.Points[0].Params.Loaders))
}

// KneeLoaders is the loader count at the knee; false for no knee.
func (c *LoadedCurve) KneeLoaders() (int, bool) {
	if c.Knee < 0 {
		return 0, false
	}
	return c.Points[c.Knee].Params.Loaders, true
}

// Summary is the curve's verdict in one line.
func (c *LoadedCurve) Summary() string {
	first, top := c.Points[0].Params.Loaders, c.Points[len(c.Points)-1].Params.Loaders
	if c.Knee < 0 {
		return fmt.Sprintf("no knee up to %s (p99 within %.0f times the %d-loader level's, the latency loop kept at least %.0f%% of %d ops/s)",
			display.Loaders(top), KneeLoadedP99, first, KneeAchieved*100, c.RateOPS)
	}
	k := c.Points[c.Knee]
	if c.Knee == 0 {
		return fmt.Sprintf("knee at or below the lowest level, %s: %s", display.Loaders(k.Params.Loaders), c.Why)
	}
	return fmt.Sprintf("knee at %s (%.3f Gb/s of %s beside): %s", display.Loaders(k.Params.Loaders), k.Loaded.Gbps(k.SizeBytes), loaderName(k), c.Why)
}

func loaderName(r *Result) string {
	if r.Loaded == nil {
		return "load"
	}
	return r.Loaded.Workload
}
