package results

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
)

// ChartKinds are the kinds of chart [Charts] draws, in order: latency vs
// size, bandwidth vs size, message rate vs size, CPU per GB vs size, a
// spectrum per latency point, latency vs offered load per load curve, and
// trends across labels.
var ChartKinds = []string{"latency", "bandwidth", "msgrate", "cpu", "spectrum", "load", "loaded", "trend"}

// NamedChart is a chart with its file name (without extension).
type NamedChart struct {
	Name  string
	Chart *plot.Chart
}

// ChartOptions choose what [Charts] draws.
type ChartOptions struct {
	// Kinds are the kinds to draw; nil draws every kind the sides have
	// data for. A kind named here without data is an error.
	Kinds []string
	// Metric is the trend's metric; "" follows lat.p50 of latency points
	// and bw of bandwidth points.
	Metric string
}

// Charts draws the sides' charts, by kind. caption goes under each. It
// stops when ctx ends, with ctx's cause.
func Charts(ctx context.Context, sides []*Group, opt ChartOptions, caption plot.Caption) (map[string][]NamedChart, error) {
	for _, k := range opt.Kinds {
		if !slices.Contains(ChartKinds, k) {
			return nil, fmt.Errorf("unknown chart %q: choose from %s", k, strings.Join(ChartKinds, ", "))
		}
	}
	if opt.Metric != "" {
		if _, err := metric.Lookup(opt.Metric); err != nil {
			return nil, fmt.Errorf("trend metric %q: unknown: choose from %s", opt.Metric, strings.Join(metricNames(), ", "))
		}
	}
	want := func(k string) bool { return opt.Kinds == nil || slices.Contains(opt.Kinds, k) }
	out := map[string][]NamedChart{}
	var missing []error
	add := func(kind, name string, ch *plot.Chart, err error) error {
		if err != nil {
			return fmt.Errorf("%s chart: %w", kind, err)
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		out[kind] = append(out[kind], NamedChart{name, ch})
		return nil
	}
	if want("latency") {
		if s := LatencySeries(sides); len(s) > 0 {
			ch, err := plot.LatencyVsSize("latency vs message size", s, caption)
			if err := add("latency", "latency_vs_size", ch, err); err != nil {
				return nil, err
			}
		} else {
			missing = append(missing, errors.New("latency: no latency result in the documents"))
		}
	}
	for _, r := range []struct {
		kind, name, title string
		series            []plot.SizeSeries
		metric            plot.RateMetric
	}{
		{"bandwidth", "bandwidth_vs_size", "bandwidth vs message size", RateSeries(sides, plot.Bandwidth), plot.Bandwidth},
		{"msgrate", "msgrate_vs_size", "message rate vs message size", RateSeries(sides, plot.MessageRate), plot.MessageRate},
		{"cpu", "cpu_per_gb_vs_size", "CPU per GB vs message size", CPUPerGBSeries(sides), ""},
	} {
		if !want(r.kind) {
			continue
		}
		if len(r.series) == 0 {
			missing = append(missing, fmt.Errorf("%s: no bandwidth result with these figures in the documents", r.kind))
			continue
		}
		var ch *plot.Chart
		var err error
		if r.metric == "" {
			ch, err = plot.CPUPerGBVsSize(r.title, r.series, caption)
		} else {
			ch, err = plot.RateVsSize(r.title, r.metric, r.series, caption)
		}
		if err := add(r.kind, r.name, ch, err); err != nil {
			return nil, err
		}
	}
	if want("spectrum") {
		spectra, err := Spectra(ctx, sides)
		if err != nil {
			return nil, err
		}
		if len(spectra) == 0 {
			missing = append(missing, errors.New("spectrum: no latency result in the documents: a spectrum needs latency points"))
		}
		for _, sp := range spectra {
			ch, err := plot.Spectrum(sp.Title, sp.Curves, caption)
			if err := add("spectrum", sp.Name, ch, err); err != nil {
				return nil, err
			}
		}
	}
	if want("load") {
		curves := LoadCharts(sides)
		if len(curves) == 0 {
			missing = append(missing, errors.New("load: no load curve in the documents: a latency-against-load chart needs a latency point run at two offered rates or more (rdma-bench run WORKLOAD --rate 1000,2000,5000)"))
		}
		for _, c := range curves {
			ch, err := plot.LatencyVsLoad(c.Title, c.Curves, caption)
			if err := add("load", c.Name, ch, err); err != nil {
				return nil, err
			}
		}
	}
	if want("loaded") {
		curves := LoadedCharts(sides)
		if len(curves) == 0 {
			missing = append(missing, errors.New("loaded: no loaded-latency curve in the documents: it needs a latency point run open-loop beside two loader levels or more (rdma-bench run WORKLOAD --rate 1000 --loaders 0,1,2)"))
		}
		for _, c := range curves {
			ch, err := plot.LatencyVsLoaders(c.Title, c.Curves, caption)
			if err := add("loaded", c.Name, ch, err); err != nil {
				return nil, err
			}
		}
	}
	if want("trend") {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if err := trendCharts(sides, opt.Metric, caption, out); err != nil {
			missing = append(missing, fmt.Errorf("trend: %w", err))
		}
	}
	if opt.Kinds != nil && len(missing) > 0 {
		return nil, missing[0]
	}
	if len(out) == 0 {
		var docs []*document.Document
		for _, s := range sides {
			docs = append(docs, s.Docs...)
		}
		if why := Unmeasured(docs); why != "" {
			missing = append([]error{errors.New(why)}, missing...)
		}
		return nil, fmt.Errorf("nothing to plot: %w", errors.Join(missing...))
	}
	return out, nil
}

// trendCharts adds the trend charts of the metric called name, or of
// lat.p50 and bw.
func trendCharts(sides []*Group, name string, caption plot.Caption, out map[string][]NamedChart) error {
	metrics := []string{metric.LatP50.Name, metric.BW.Name}
	if name != "" {
		metrics = []string{name}
	}
	var why error
	for _, m := range metrics {
		trends, err := Trends(sides, m)
		if err != nil {
			why = err
			continue
		}
		for _, t := range trends {
			ch, err := plot.Trend(t.Title, t.Axis, t.Labels, t.Series, caption)
			if err != nil {
				return err
			}
			out["trend"] = append(out["trend"], NamedChart{t.Name, ch})
		}
	}
	if len(out["trend"]) == 0 {
		return why
	}
	return nil
}

// ComparisonCharts are a comparison's charts: the whiskers of every gate
// row, and a base-against-new spectrum of every compared latency point.
func ComparisonCharts(title string, g compare.GateResult, m *Matching, caption plot.Caption) ([]NamedChart, error) {
	w, err := plot.ComparisonWhiskers(title, Whiskers(g), caption)
	if err != nil {
		return nil, err
	}
	out := []NamedChart{{"comparison", w}}
	spectra, err := m.PairSpectra("base", "new")
	if err != nil {
		return nil, err
	}
	for _, sp := range spectra {
		ch, err := plot.Spectrum(sp.Title, sp.Curves, caption)
		if err != nil {
			return nil, err
		}
		out = append(out, NamedChart{sp.Name, ch})
	}
	return out, nil
}

func metricNames() []string {
	var out []string
	for _, m := range metric.All() {
		out = append(out, m.Name)
	}
	return out
}

// ParseMetrics reads a comma-separated list of metric names; "" is every
// metric, in display order.
func ParseMetrics(list string) ([]metric.Metric, error) {
	if strings.TrimSpace(list) == "" {
		return metric.All(), nil
	}
	var out []metric.Metric
	for _, n := range strings.Split(list, ",") {
		m, err := metric.Lookup(strings.TrimSpace(n))
		if err != nil {
			return nil, fmt.Errorf("unknown metric %q: choose from %s", strings.TrimSpace(n), strings.Join(metricNames(), ", "))
		}
		out = append(out, m)
	}
	return out, nil
}

// MetricNames lists the known metrics, comma-separated.
func MetricNames() string { return strings.Join(metricNames(), ", ") }

// SideName names a side of a comparison: name, then how many documents
// and which rdma-bench versions wrote them: "base.json (rdma-bench
// 0.2.0)", "label base (3 documents, rdma-bench 0.2.0)".
func SideName(name string, docs []*document.Document) string {
	var versions []string
	for _, d := range docs {
		if !slices.Contains(versions, d.Tool.Version) {
			versions = append(versions, d.Tool.Version)
		}
	}
	info := "rdma-bench " + strings.Join(versions, ", ")
	if len(docs) > 1 {
		info = fmt.Sprintf("%d documents, %s", len(docs), info)
	}
	return fmt.Sprintf("%s (%s)", name, info)
}
