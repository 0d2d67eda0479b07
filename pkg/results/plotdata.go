package results

import (
	"math"
	"slices"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
)

// line is one line of a size chart: the points of one side that differ
// only in size, smallest first.
type line struct {
	name   string
	family plot.Family
	points []*Point
}

// lines groups the points of every side that want accepts into lines.
// A line is named by its workload, then its transport unless RC or TCP,
// its completion unless poll, its parameters off their usual values or
// differing between lines of the workload, and with several sides its
// side's label: "write_lat", "send_lat UD event", "write_bw qps=4 (fw 2)".
func lines(sides []*Group, want func(*Point) bool) []line {
	type id struct {
		side int
		key  Key
	}
	var order []id
	byID := map[id]*line{}
	var keys []*Point
	for i, s := range sides {
		for _, p := range s.Points {
			if !want(p) {
				continue
			}
			k := p.Key
			k.SizeBytes = 0
			l := byID[id{i, k}]
			if l == nil {
				l = &line{family: familyOf(p)}
				byID[id{i, k}] = l
				order = append(order, id{i, k})
				keys = append(keys, &Point{Key: k})
			}
			l.points = append(l.points, p)
		}
	}
	vary := varying(keys, nil)
	out := make([]line, 0, len(order))
	for _, x := range order {
		l := byID[x]
		slices.SortStableFunc(l.points, func(a, b *Point) int { return a.Key.SizeBytes - b.Key.SizeBytes })
		parts := []string{x.key.Workload}
		if t := x.key.Transport; t != "" && t != "RC" && t != "TCP" {
			parts = append(parts, t)
		}
		if c := x.key.Completion; c != "" && c != "poll" {
			parts = append(parts, c)
		}
		parts = append(parts, paramTags(x.key, vary[x.key.coarse()])...)
		l.name = strings.Join(parts, " ")
		if len(sides) > 1 {
			l.name += " (" + sideName(sides[x.side]) + ")"
		}
		out = append(out, *l)
	}
	return out
}

func familyOf(p *Point) plot.Family {
	if p.TCP {
		return plot.TCP
	}
	return plot.RDMA
}

// sideName is a side's label, or "no label".
func sideName(s *Group) string {
	if s.Label == "" {
		return "no label"
	}
	return s.Label
}

// LatencySeries returns the latency-vs-size series of the sides' latency
// points: p50, p99 and p99.9 from each point's merged figures (see
// [Point.Figure]); a missing tail percentile is NaN, a point without p50
// is left out. The open-loop points of a load curve are left out too
// (they have a chart of their own, [LoadCharts]): a point run closed loop
// and at several rates is drawn closed loop; a point run at one rate is a
// line of its own ("write_lat at 5000 ops/s").
func LatencySeries(sides []*Group) []plot.LatencySeries {
	var out []plot.LatencySeries
	curve := onLoadCurve(sides)
	for _, l := range lines(sides, func(p *Point) bool { return p.Latency && !curve[p] }) {
		s := plot.LatencySeries{Name: l.name, Family: l.family}
		for _, p := range l.points {
			p50, ok := p.Figure(metric.LatP50.Name)
			if !ok {
				continue
			}
			s.Points = append(s.Points, plot.LatencyPoint{SizeBytes: p.Key.SizeBytes, P50US: p50,
				P99US: figureOrNaN(p, metric.LatP99.Name), P99_9US: figureOrNaN(p, metric.LatP99_9.Name), Caveat: caveatOf(p)})
		}
		if len(s.Points) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// RateSeries returns bandwidth (bw_gbps) or message rate (msg_rate_mpps)
// against size for the sides' bandwidth points.
func RateSeries(sides []*Group, rate plot.RateMetric) []plot.SizeSeries {
	name := metric.BW.Name
	if rate == plot.MessageRate {
		name = metric.MsgRate.Name
	}
	return sizeSeries(sides, name)
}

// CPUPerGBSeries returns the CPU seconds per GB (cpu_s_per_gb, both
// sides' total, else the local side's) against size for the sides'
// bandwidth points.
func CPUPerGBSeries(sides []*Group) []plot.SizeSeries {
	return sizeSeries(sides, metric.CPUPerGB.Name)
}

func sizeSeries(sides []*Group, metric string) []plot.SizeSeries {
	var out []plot.SizeSeries
	for _, l := range lines(sides, func(p *Point) bool { return !p.Latency }) {
		s := plot.SizeSeries{Name: l.name, Family: l.family}
		for _, p := range l.points {
			if v, ok := p.Figure(metric); ok && v > 0 {
				s.Points = append(s.Points, plot.SizeValue{SizeBytes: p.Key.SizeBytes, Value: v, Caveat: caveatOf(p)})
			}
		}
		if len(s.Points) > 0 {
			out = append(out, s)
		}
	}
	return out
}

func figureOrNaN(p *Point, metric string) float64 {
	if v, ok := p.Figure(metric); ok {
		return v
	}
	return math.NaN()
}

// caveatOf is what a chart marks of a point: the latency samples of its
// figures and whether a run of it drawn was not clean. Over several
// results [Point.Figure] takes a percentile of their merged histograms,
// of every result's samples together, or without histograms the median
// of their figures, each of its own samples: then the fewest count.
func caveatOf(p *Point) plot.Caveat {
	var sum, fewest int64
	merged, results := true, 0
	for _, r := range p.Results {
		if len(r.Runs) == 0 { // every run left out (--clean-only)
			continue
		}
		sum += r.Samples
		if results == 0 || r.Samples < fewest {
			fewest = r.Samples
		}
		merged = merged && hasHistogram(r)
		results++
	}
	n := sum
	if results > 1 && !merged {
		n = fewest
	}
	return plot.Caveat{Samples: n, Unclean: p.Unclean > 0}
}

// hasHistogram says whether r has the histogram [Point.Histogram] merges:
// its own, or every run's.
func hasHistogram(r *document.Result) bool {
	if r.Histogram != "" {
		return true
	}
	if !r.RunsRecorded || len(r.Runs) == 0 {
		return false
	}
	for _, run := range r.Runs {
		if run.Histogram == "" {
			return false
		}
	}
	return true
}
