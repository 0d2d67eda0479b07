package results

import (
	"fmt"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"math"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
)

// Axis names a metric's axis with its unit, such as "p50 latency (µs)"
// (package metric's table); an unknown metric by its name.
func Axis(name string) string {
	if m, err := metric.Lookup(name); err == nil {
		return m.Axis
	}
	return name
}

// TrendChart is the input of one trend chart.
type TrendChart struct {
	// Name is a file name without extension, such as
	// "trend_write_lat_lat.p50".
	Name, Title string
	// Axis names the metric and unit; Labels are the sides' labels, in
	// order.
	Axis   string
	Labels []string
	Series []plot.TrendSeries
}

// Trends follows metric across the labelled sides (documents without a
// label are left out): one chart per workload, one series per point of
// it to which the metric applies, each label's value the median of the
// point's runs with its 95% distribution-free interval (benchmath; no bar
// when the runs are too few). It needs at least two labels.
func Trends(sides []*Group, metric string) ([]TrendChart, error) {
	var labelled []*Group
	for _, s := range sides {
		if s.Label != "" {
			labelled = append(labelled, s)
		}
	}
	if len(labelled) < 2 {
		return nil, fmt.Errorf("a trend needs documents of at least two labels, found %d", len(labelled))
	}
	labels := make([]string, len(labelled))
	var all []*Point
	for i, s := range labelled {
		labels[i] = s.Label
		all = append(all, s.Points...)
	}
	vary := varying(all, nil)
	var out []TrendChart
	chart := map[string]int{}
	series := map[Key]*plot.TrendSeries{}
	for _, s := range labelled {
		for _, p := range s.Points {
			if !Applies(metric, p.Latency) || series[p.Key] != nil {
				continue
			}
			ts := trendSeries(p.Key, labelled, metric)
			if ts == nil {
				continue
			}
			ts.Name = strings.TrimPrefix(Describe(p.Key, vary[p.Key.coarse()]), p.Key.Workload+" ")
			series[p.Key] = ts
			i, ok := chart[p.Key.Workload]
			if !ok {
				i = len(out)
				chart[p.Key.Workload] = i
				out = append(out, TrendChart{Name: "trend_" + p.Key.Workload + "_" + metric,
					Title: p.Key.Workload + ": " + Axis(metric) + " by label", Axis: Axis(metric), Labels: labels})
			}
			out[i].Series = append(out[i].Series, *ts)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no point has %s figures under two labels or more", metric)
	}
	return out, nil
}

// trendSeries is one point's values across the sides; nil when no side
// has a figure.
func trendSeries(k Key, sides []*Group, name string) *plot.TrendSeries {
	ts := &plot.TrendSeries{}
	met, _ := metric.Lookup(name) // unknown: no percentile, none thin
	found := false
	for _, s := range sides {
		v := plot.TrendValue{Median: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
		for _, p := range s.Points {
			if p.Key != k {
				continue
			}
			ts.Family = familyOf(p)
			vals, _ := p.Values(name)
			if len(vals) == 0 {
				break
			}
			found = true
			sum := benchmath.AssumeNothing.Summary(benchmath.NewSample(vals, &benchmath.DefaultThresholds), 0.95)
			v.Median = sum.Center
			c := p.runCounts(met)
			v.Thin, v.Unclean = c.Thin > 0, c.Unclean > 0
			if !math.IsInf(sum.Lo, 0) && !math.IsInf(sum.Hi, 0) && len(vals) > 1 {
				v.Lo, v.Hi = sum.Lo, sum.Hi
			}
		}
		ts.Values = append(ts.Values, v)
	}
	if !found {
		return nil
	}
	return ts
}

// Whiskers turns gate rows into comparison whiskers: the change of the
// median with its interval (none when unbounded), the gate's threshold
// for the metric, and a regression where the gate failed.
func Whiskers(g compare.GateResult) []plot.Whisker {
	out := make([]plot.Whisker, 0, len(g.Rows))
	for _, r := range g.Rows {
		w := plot.Whisker{Label: r.Point + " " + r.Metric.Name, DeltaPct: r.ChangePct,
			LoPct: r.ChangeLoPct, HiPct: r.ChangeHiPct, Regression: r.Outcome == compare.OutcomeFail,
			Inconclusive: r.Outcome == compare.OutcomeInconclusive,
			Thin:         r.Base.Thin+r.New.Thin > 0, Unclean: r.Base.Unclean+r.New.Unclean > 0}
		if math.IsInf(w.LoPct, 0) || math.IsInf(w.HiPct, 0) || math.IsNaN(w.LoPct) || math.IsNaN(w.HiPct) {
			w.LoPct, w.HiPct = math.NaN(), math.NaN()
		}
		if r.Threshold != nil {
			edge := r.Threshold.EdgePct()
			w.ThresholdPct = &edge
		}
		out = append(out, w)
	}
	return out
}
