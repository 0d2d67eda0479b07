package results

import (
	"fmt"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
)

// Value returns a metric's figure in f, in the metric's unit: lat.p50,
// lat.p99 and lat.p99_9 from latency_us, bw from bw_gbps, msgrate from
// msg_rate_mpps, cpu.op and cpu.gb from cpu_us_per_op and cpu_s_per_gb
// (both sides' total, else the local side's). It is nil when f has no
// such figure or the metric is unknown.
func Value(metric string, f *Figures) *float64 {
	lat := func(get func(*Latency) *float64) *float64 {
		if f.LatencyUS == nil {
			return nil
		}
		return get(f.LatencyUS)
	}
	switch metric {
	case compare.LatP50.Name:
		return lat(func(l *Latency) *float64 { return l.P50 })
	case compare.LatP99.Name:
		return lat(func(l *Latency) *float64 { return l.P99 })
	case compare.LatP99_9.Name:
		return lat(func(l *Latency) *float64 { return l.P99_9 })
	case compare.BW.Name:
		return f.BwGbps
	case compare.MsgRate.Name:
		return f.MsgRateMpps
	case compare.CPUPerOp.Name:
		return f.CPUUSPerOp.Both()
	case compare.CPUPerGB.Name:
		return f.CPUSPerGB.Both()
	}
	return nil
}

// Applies says whether a metric belongs to a point of this kind: latency
// percentiles to latency points; bandwidth, message rate and CPU per GB
// to bandwidth points (a ping-pong's CPU per GB is its CPU per operation
// over the size: the same verdict twice); CPU per operation to both.
func Applies(metric string, latency bool) bool {
	switch metric {
	case compare.LatP50.Name, compare.LatP99.Name, compare.LatP99_9.Name:
		return latency
	case compare.BW.Name, compare.MsgRate.Name, compare.CPUPerGB.Name:
		return !latency
	}
	return true
}

// Values returns a metric's figure in each of a point's runs that has a
// positive one, and how many runs had none.
func (p *Point) Values(metric string) (vals []float64, missing int) {
	for _, s := range p.Runs {
		if v := Value(metric, &s.Run.Figures); v != nil && *v > 0 {
			vals = append(vals, *v)
		} else {
			missing++
		}
	}
	return vals, missing
}

// Series returns one compare.Series for every pair and metric that
// applies to it, pairs in order and metrics in the order given, with each
// side's unclean runs counted. A metric that applies but one side has no
// figure for is left out, and so is a pair with a side whose every run
// was left out as unclean; they and runs without a figure are explained
// in notes.
func (m *Matching) Series(metrics []compare.Metric) (series []compare.Series, notes []string) {
	for _, p := range m.Pairs {
		if p.Base.Latency != p.New.Latency {
			notes = append(notes, fmt.Sprintf("%s: a latency point on one side and a bandwidth point on the other: not compared", p.Label))
			continue
		}
		if n := allDropped(p); n != "" {
			notes = append(notes, n)
			continue
		}
		for _, met := range metrics {
			if !Applies(met.Name, p.Base.Latency) {
				continue
			}
			b, bMiss := p.Base.Values(met.Name)
			n, nMiss := p.New.Values(met.Name)
			switch {
			case len(b) == 0 && len(n) == 0:
				continue
			case len(b) == 0 || len(n) == 0:
				side := "base"
				if len(n) == 0 {
					side = "new side"
				}
				notes = append(notes, fmt.Sprintf("%s %s: no figure in the %s: not compared", p.Label, met.Name, side))
				continue
			}
			for _, s := range []struct {
				side        string
				miss, total int
			}{{"base", bMiss, len(p.Base.Runs)}, {"new", nMiss, len(p.New.Runs)}} {
				if s.miss > 0 {
					notes = append(notes, fmt.Sprintf("%s %s: %d of %d %s runs have no figure: compared on the other %d",
						p.Label, met.Name, s.miss, s.total, s.side, s.total-s.miss))
				}
			}
			series = append(series, compare.Series{Point: p.Label, Metric: met, Base: b, New: n,
				BaseRuns: p.Base.runCounts(), NewRuns: p.New.runCounts()})
		}
	}
	return series, notes
}

// runCounts are the point's unclean runs, as a comparison counts them.
func (p *Point) runCounts() compare.RunCounts {
	return compare.RunCounts{Unclean: p.Unclean, Dropped: p.Dropped}
}

// allDropped explains a pair with a side whose runs were all left out as
// unclean, or is "".
func allDropped(p *Pair) string {
	var why []string
	for _, s := range []struct {
		side string
		pt   *Point
	}{{"base", p.Base}, {"new", p.New}} {
		if len(s.pt.Runs) == 0 && s.pt.Dropped > 0 {
			why = append(why, fmt.Sprintf("all %d %s runs", s.pt.Dropped, s.side))
		}
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s not clean and left out by --clean-only: not compared", p.Label, strings.Join(why, " and "))
}
