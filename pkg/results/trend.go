package results

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/metric"

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
	byLabel := labelParams(labelled, vary)
	var out []TrendChart
	chart := map[string]int{}
	series := map[Key]*plot.TrendSeries{}
	for _, s := range labelled {
		for _, p := range s.Points {
			c := p.Key.coarse()
			k := p.Key.without(byLabel[c])
			if !Applies(metric, p.Latency) || series[k] != nil {
				continue
			}
			ts := trendSeries(k, byLabel[c], labelled, metric)
			if ts == nil {
				continue
			}
			within := maps.Clone(vary[c])
			for _, n := range byLabel[c] {
				delete(within, n)
			}
			ts.Name = strings.TrimPrefix(Describe(k, within), p.Key.Workload+" ")
			if len(byLabel[c]) > 0 {
				ts.Name += " (" + labelChange(k, byLabel[c], labelled) + ")"
			}
			series[k] = ts
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

// labelParams are, for each point (its coarse key), the identity
// parameters that differ between labels but never within one (a label
// that changes the MTU): a trend joins the point's values across them,
// its series named with the change, instead of splitting into a series
// a value.
func labelParams(sides []*Group, across map[Key]map[string]bool) map[Key][]string {
	within := map[Key]map[string]bool{}
	for _, s := range sides {
		for c, names := range varying(s.Points, nil) {
			if within[c] == nil {
				within[c] = map[string]bool{}
			}
			for n := range names {
				within[c][n] = true
			}
		}
	}
	out := map[Key][]string{}
	for c, names := range across {
		for _, n := range IdentityParams {
			if names[n] && !within[c][n] {
				out[c] = append(out[c], n)
			}
		}
	}
	return out
}

// labelChange names the label-level parameters' values, label by label:
// "mtu 1024 (fw-A), 4096 (fw-B)".
func labelChange(k Key, names []string, sides []*Group) string {
	var parts []string
	for _, n := range names {
		i := slices.Index(IdentityParams, n)
		var vals []string
		for _, s := range sides {
			for _, p := range s.Points {
				if p.Key.without(names) == k {
					vals = append(vals, p.Key.Params[i]+" ("+s.Label+")")
					break
				}
			}
		}
		parts = append(parts, n+" "+strings.Join(vals, ", "))
	}
	return "changes by label: " + strings.Join(parts, "; ")
}

// trendSeries is one point's values across the sides, the parameters
// ignore (set by label) left out of its key; nil when no side has a
// figure.
func trendSeries(k Key, ignore []string, sides []*Group, name string) *plot.TrendSeries {
	ts := &plot.TrendSeries{}
	met, _ := metric.Lookup(name) // unknown: no percentile, none thin
	found := false
	for _, s := range sides {
		v := plot.TrendValue{Median: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
		for _, p := range s.Points {
			if p.Key.without(ignore) != k {
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
