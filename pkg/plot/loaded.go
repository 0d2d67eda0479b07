package plot

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// LoadedPoint is the latency of an open-loop run beside Loaders loader
// QPs that streamed LoadersGbps together (0 at level 0), in microseconds
// from each operation's due time. P99US and P99_9US may be NaN.
type LoadedPoint struct {
	Loaders     int
	LoadersGbps float64
	P50US       float64
	P99US       float64
	P99_9US     float64
	Caveat
}

// LoadedCurve is one point's loaded-latency curve: its latency at each
// loader level, against the loaders' bandwidth.
type LoadedCurve struct {
	Name   string
	Family Family
	Points []LoadedPoint
	// KneeLoaders is the level of the knee, -1 for none; it is marked by
	// a vertical line at that level's bandwidth.
	KneeLoaders int
}

// LatencyVsLoaders draws a loaded-latency curve as LatencyVsLoad draws
// latency against offered load, with the loaders' bandwidth on a linear x
// axis from 0 (the unloaded level) instead of the offered rate: each
// curve's p50 thick with markers, its p99 and p99.9 thin, the knee a
// dash-dotted vertical line.
func LatencyVsLoaders(title string, curves []LoadedCurve, caption Caption) (*Chart, error) {
	names := make([]string, len(curves))
	for i, c := range curves {
		names[i] = c.Name
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("loaded chart %q: %w", title, err)
		}
	}
	if err := checkNames(names); err != nil {
		return nil, fmt.Errorf("loaded chart %q: %w", title, err)
	}
	p := newPlot("loaders' bandwidth (Gb/s), all loader QPs together")
	ch := newChart(title, p, "latency (µs)", caption)
	var front []plot.Plotter
	var tails [2]bool
	var marks caveatMarks
	knees := 0
	kneeLabel := "knee (first level past it)"
	for i, c := range curves {
		pts := slices.Clone(c.Points)
		slices.SortFunc(pts, func(a, b LoadedPoint) int { return a.Loaders - b.Loaders })
		st := styleFor(i, c.Family, 2)
		xy := func(get func(LoadedPoint) float64) plotter.XYs {
			var out plotter.XYs
			for _, pt := range pts {
				if v := get(pt); !math.IsNaN(v) {
					out = append(out, plotter.XY{X: pt.LoadersGbps, Y: v})
				}
			}
			return out
		}
		if err := addTails(p, st, xy(func(p LoadedPoint) float64 { return p.P99US }), xy(func(p LoadedPoint) float64 { return p.P99_9US }), &tails); err != nil {
			return nil, fmt.Errorf("loaded chart %q: curve %q: %w", title, c.Name, err)
		}
		l, sc, err := plotter.NewLinePoints(xy(func(p LoadedPoint) float64 { return p.P50US }))
		if err != nil {
			return nil, fmt.Errorf("loaded chart %q: curve %q: %w", title, c.Name, err)
		}
		l.LineStyle, sc.GlyphStyle = st.line, st.glyph
		front = append(front, l, sc)
		for _, pt := range pts {
			if pt.Loaders == c.KneeLoaders {
				p.Add(&refLine{vertical: true, x: pt.LoadersGbps, style: draw.LineStyle{Color: st.line.Color, Width: 1.2, Dashes: kneeDashes}})
				knees++
				kneeLabel = "knee: " + strconv.Itoa(pt.Loaders) + " loader" + map[bool]string{true: "s"}[pt.Loaders != 1] + ", " + display.Significant(pt.LoadersGbps, 3) + " Gb/s"
			}
			markPercentiles(&marks, pt.LoadersGbps, pt.Caveat, pt.P50US, pt.P99US, pt.P99_9US)
		}
		ch.legend = append(ch.legend, legendEntry{c.Name, seriesThumbs(st)})
	}
	p.Add(front...)
	caveats := marks.add(p)
	ch.legend = append(ch.legend, percentileLegend(tails)...)
	if knees > 1 {
		kneeLabel = "knee (first level past it)"
	}
	if knees > 0 {
		ch.legend = append(ch.legend, greyLine(kneeLabel, kneeDashes))
	}
	ch.legend = append(ch.legend, caveats...)
	p.X.Min = 0
	if p.X.Max <= 0 {
		p.X.Max = 1
	}
	p.X.Max *= 1.05
	xRoom := roomFor(&p.X, false)
	yRoom := logYAxis(p)
	ch.fit = fitRooms(xRoom, yRoom)
	return ch, nil
}

func (c LoadedCurve) check() error {
	if err := c.Family.check(); err != nil {
		return fmt.Errorf("curve %q: %w", c.Name, err)
	}
	if len(c.Points) == 0 {
		return fmt.Errorf("curve %q: no points: want at least one loader level", c.Name)
	}
	for _, pt := range c.Points {
		if pt.LoadersGbps < 0 || math.IsNaN(pt.LoadersGbps) || math.IsInf(pt.LoadersGbps, 0) {
			return fmt.Errorf("curve %q: loaders' bandwidth %v Gb/s at %d loaders: want 0 or more", c.Name, pt.LoadersGbps, pt.Loaders)
		}
		at := " at " + strconv.Itoa(pt.Loaders) + " loaders"
		if err := checkLatencies(c.Name, at, pt.P50US, pt.P99US, pt.P99_9US); err != nil {
			return err
		}
	}
	return nil
}
