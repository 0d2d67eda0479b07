package results

import (
	"context"
	"maps"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
)

// spectrumPercentiles are the percentiles a spectrum shows, each only when
// the sample is large enough to have it (at least one value beyond it).
var spectrumPercentiles = []float64{50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.995, 99.999}

// SpectrumPoints returns a latency point's percentile spectrum: from its
// merged histogram, the percentiles from 50% out to 99.999% that its
// sample is large enough for, and the maximum (as 100%); from a document
// without histograms, the latency_us percentiles and maximum. It is nil
// for a point without latency figures.
func SpectrumPoints(p *Point) ([]plot.SpectrumPoint, error) {
	h, err := p.Histogram()
	if err != nil {
		return nil, err
	}
	var out []plot.SpectrumPoint
	if h != nil {
		n := float64(h.TotalCount())
		var ps []float64
		for _, pct := range spectrumPercentiles {
			if n*(1-pct/100) >= 1-1e-9 || pct == 50 {
				ps = append(ps, pct)
			}
		}
		ps = append(ps, 100)
		for i, v := range percentilesUS(h, ps) {
			out = append(out, plot.SpectrumPoint{Percentile: ps[i], ValueUS: v})
		}
		return out, nil
	}
	for _, pct := range []struct {
		p   float64
		get func(*document.Latency) *float64
	}{
		{50, func(l *document.Latency) *float64 { return l.P50 }},
		{90, func(l *document.Latency) *float64 { return l.P90 }},
		{99, func(l *document.Latency) *float64 { return l.P99 }},
		{99.9, func(l *document.Latency) *float64 { return l.P99_9 }},
		{99.99, func(l *document.Latency) *float64 { return l.P99_99 }},
		{100, func(l *document.Latency) *float64 { return l.Max }},
	} {
		var vals []float64
		for _, r := range p.Results {
			if r.LatencyUS != nil {
				if v := pct.get(r.LatencyUS); v != nil {
					vals = append(vals, *v)
				}
			}
		}
		if len(vals) > 0 {
			v := compare.Median(vals)
			if pct.p == 100 {
				v = maxOf(vals)
			}
			out = append(out, plot.SpectrumPoint{Percentile: pct.p, ValueUS: v})
		}
	}
	if len(out) == 0 || out[0].Percentile == 100 {
		return nil, nil
	}
	return out, nil
}

func maxOf(v []float64) float64 {
	m := v[0]
	for _, x := range v[1:] {
		m = max(m, x)
	}
	return m
}

// SpectrumChart is the input of one spectrum chart.
type SpectrumChart struct {
	// Name is a file name without extension, such as
	// "spectrum_write_lat_RC_poll_64B".
	Name   string
	Title  string
	Curves []plot.SpectrumCurve
}

// Spectra returns one spectrum chart per latency point of the sides, in
// order found, each with a curve per side that has the point (named by
// the side's label, or by the point with a single unlabelled side). The
// points of a load curve share one chart, a curve per offered rate and
// one closed loop ("at 5000 ops/s", "closed loop"), and so do the levels
// of a loaded-latency curve, a curve per level ("3 loaders"). It stops
// when ctx ends, with ctx's cause.
func Spectra(ctx context.Context, sides []*Group) ([]SpectrumChart, error) {
	var out []SpectrumChart
	idx := map[Key]int{}
	var all []*Point
	for _, s := range sides {
		all = append(all, s.Points...)
	}
	vary := varying(all, nil)
	for _, s := range sides {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		group := map[*Point]Key{}
		for _, g := range loadGroups(s) {
			for _, p := range g.open {
				group[p] = g.key
			}
			if g.closed != nil {
				group[g.closed] = g.key
			}
		}
		loaded := map[*Point]Key{}
		for _, g := range loadedGroups(s) {
			for _, p := range g.points {
				loaded[p] = g.key
			}
		}
		for _, p := range s.Points {
			if !p.Latency {
				continue
			}
			pts, err := SpectrumPoints(p)
			if err != nil {
				return nil, err
			}
			if pts == nil {
				continue
			}
			key, title, rate := p.Key, "", ""
			label := Describe(p.Key, vary[p.Key.coarse()])
			if gk, ok := group[p]; ok {
				key, rate = gk, rateTag(p.Key.Param("rate"))
				also := maps.Clone(vary[gk.coarse()])
				delete(also, "rate")
				label = Describe(gk, also)
				title = label + ": latency spectrum at each offered rate"
			}
			if gk, ok := loaded[p]; ok {
				key, rate = gk, display.Loaders(p.Key.LoadersOf())
				also := maps.Clone(vary[gk.coarse()])
				delete(also, "loaders")
				label = Describe(gk, also)
				title = label + ": latency spectrum at each loader level"
			}
			i, ok := idx[key]
			if !ok {
				i = len(out)
				idx[key] = i
				if title == "" {
					title = label + ": latency spectrum"
				}
				out = append(out, SpectrumChart{Name: "spectrum_" + FileName(label), Title: title})
			}
			name := s.Label
			if name == "" {
				name = label
				if len(sides) > 1 {
					name = "no label"
				}
			}
			switch {
			case rate != "" && len(sides) == 1 && s.Label == "":
				name = rate
			case rate != "":
				name += ", " + rate
			}
			out[i].Curves = append(out[i].Curves, plot.SpectrumCurve{Name: name, Family: familyOf(p), Points: pts, Unclean: p.Unclean > 0})
		}
	}
	return out, nil
}

// PairSpectra returns a base-against-new spectrum chart for every
// compared latency point whose two sides have latency figures; the
// curves are named baseName and newName.
func (m *Matching) PairSpectra(baseName, newName string) ([]SpectrumChart, error) {
	var out []SpectrumChart
	for _, p := range m.Pairs {
		if !p.Base.Latency || !p.New.Latency {
			continue
		}
		b, err := SpectrumPoints(p.Base)
		if err != nil {
			return nil, err
		}
		n, err := SpectrumPoints(p.New)
		if err != nil {
			return nil, err
		}
		if b == nil || n == nil {
			continue
		}
		out = append(out, SpectrumChart{
			Name:  "spectrum_" + FileName(p.Label),
			Title: p.Label + ": latency spectrum, base against new",
			Curves: []plot.SpectrumCurve{
				{Name: baseName, Family: familyOf(p.Base), Points: b, Unclean: p.Base.Unclean > 0},
				{Name: newName, Family: familyOf(p.New), Points: n, Unclean: p.New.Unclean > 0},
			},
		})
	}
	return out, nil
}

// FileName turns a point's label into a file name: "write_lat RC poll
// 64 KiB qps=4" becomes "write_lat_RC_poll_64KiB_qps4", "... at 5000
// ops/s" "..._at_5000ops".
func FileName(label string) string {
	r := strings.NewReplacer(" B", "B", " KiB", "KiB", " MiB", "MiB", " GiB", "GiB", " ops/s", "ops", "=", "", "->", "-", " ", "_", "/", "_", "\\", "_")
	return r.Replace(label)
}
