package report

import (
	"fmt"
	"slices"
)

// OpenLoop is what an open-loop latency run (--rate) measured beside its
// headline latency: operations were issued on a fixed schedule, operation
// i due at i/RateOPS seconds, and the headline latency of each runs from
// when it was due, not from when it could be posted, so that a stall
// delays every operation behind it in the figures as it would for a real
// application (no coordinated omission; see docs/measurement.md).
type OpenLoop struct {
	// RateOPS is the offered rate, in operations per second.
	RateOPS int
	// Issued is the operations posted on the schedule. Behind is those
	// that were due before the run ended but never posted: the schedule
	// fell that far behind (duration mode; 0 in iteration mode, where
	// every operation is issued, late or not).
	Issued, Behind uint64
	// Service is each operation's time from its actual post to its
	// completion (halved for a ping-pong, like the headline); Lag is its
	// time from when it was due to its post (the schedule's delay).
	Service, Lag *LatencyRecorder
}

// AchievedOPS is the rate the run completed operations at: its operations
// over its timed span, which starts when the first one was due.
func (r *Result) AchievedOPS() (float64, bool) {
	if r.Open == nil || r.ElapsedNS <= 0 {
		return 0, false
	}
	return float64(r.Ops) / float64(r.ElapsedNS) * 1e9, true
}

// Stats returns the statistics of what r recorded, nil when empty.
func (r *LatencyRecorder) Stats() *LatencyStats {
	if r == nil || r.Count() == 0 {
		return nil
	}
	var res Result
	r.Fill(&res)
	return histStats(&res)
}

// mergeOpen is the open-loop figures of several runs of one point.
func mergeOpen(runs []*Result) *OpenLoop {
	var m *OpenLoop
	for _, r := range runs {
		o := r.Open
		if o == nil {
			continue
		}
		if m == nil {
			m = &OpenLoop{RateOPS: o.RateOPS, Service: NewLatencyRecorder(), Lag: NewDelayRecorder()}
		}
		m.Issued += o.Issued
		m.Behind += o.Behind
		m.Service.Merge(o.Service)
		m.Lag.Merge(o.Lag)
	}
	return m
}

// The knee of a latency-against-load curve: the first offered rate the
// run could not keep up with (it achieved less than KneeAchieved of it),
// or at which the p99 latency rose above KneeP99 times the p99 at the
// lowest rate.
const (
	KneeAchieved = 0.95
	KneeP99      = 2.0
)

// LoadCurve is one point's latency against offered load: its open-loop
// results at several rates (ascending), beside its closed-loop result
// when there is one.
type LoadCurve struct {
	Workload  string
	SizeBytes int
	Closed    *Result
	Points    []*Result
	// Knee is the index in Points of the knee; -1 when there is none up
	// to the highest rate. Why says what crossed its threshold there.
	Knee int
	Why  string
}

// LoadCurves finds every point measured at two or more rates among
// results and judges its curve. Results that differ in nothing but their
// rate (and iterations) are one point.
func LoadCurves(results []*Result) []*LoadCurve {
	var curves []*LoadCurve
	byKey := map[string]*LoadCurve{}
	closed := map[string]*Result{}
	for _, r := range results {
		if !isLatency(r) || r.Params.Loaders > 0 {
			continue
		}
		key := groupKey(r) + "|" + fmt.Sprint(r.SizeBytes)
		if r.Open == nil {
			closed[key] = r
			continue
		}
		c, ok := byKey[key]
		if !ok {
			c = &LoadCurve{Workload: r.Workload, SizeBytes: r.SizeBytes}
			byKey[key] = c
			curves = append(curves, c)
		}
		c.Points = append(c.Points, r)
	}
	for key, c := range byKey {
		c.Closed = closed[key]
	}
	var out []*LoadCurve
	for _, c := range curves {
		if len(c.Points) < 2 {
			continue
		}
		slices.SortStableFunc(c.Points, func(a, b *Result) int { return a.Open.RateOPS - b.Open.RateOPS })
		c.judge()
		out = append(out, c)
	}
	return out
}

// judge finds the knee.
func (c *LoadCurve) judge() { c.Knee, c.Why = kneeOf(c.Points, KneeP99, "the lowest rate") }

// kneeOf is the knee of a latency curve, points in order of load: the
// first whose latency loop achieved under KneeAchieved of its offered
// rate, or whose p99 is over p99Factor times the first point's (named
// lowest in the reason); -1 when there is none. Both curves, against
// the offered rate and against loaders, judge by it.
func kneeOf(points []*Result, p99Factor float64, lowest string) (int, string) {
	var base float64
	for i, r := range points {
		l := Summarize(r).Latency
		if l == nil {
			continue
		}
		if base == 0 {
			base = l.P99NS
		}
		if got, ok := r.AchievedOPS(); ok && got < KneeAchieved*float64(r.Open.RateOPS) {
			return i, fmt.Sprintf("achieved %.0f ops/s, under %.0f%% of the offered %d", got, KneeAchieved*100, r.Open.RateOPS)
		}
		if l.P99NS > p99Factor*base {
			return i, fmt.Sprintf("p99 %.2f us, over %.0f times %s's %.2f us", l.P99US(), p99Factor, lowest, base/1e3)
		}
	}
	return -1, ""
}

// Summary is the curve's verdict in one line.
func (c *LoadCurve) Summary() string {
	top := c.Points[len(c.Points)-1].Open.RateOPS
	if c.Knee < 0 {
		return fmt.Sprintf("no knee up to %d ops/s offered (achieved at least %.0f%% of every rate, p99 within %.0f times the lowest rate's)", top, KneeAchieved*100, KneeP99)
	}
	if c.Knee == 0 {
		return fmt.Sprintf("knee at or below %d ops/s, the lowest rate: %s", c.Points[0].Open.RateOPS, c.Why)
	}
	return fmt.Sprintf("knee between %d and %d ops/s offered: at %d, %s", c.Points[c.Knee-1].Open.RateOPS, c.Points[c.Knee].Open.RateOPS, c.Points[c.Knee].Open.RateOPS, c.Why)
}
