package plot

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// TrendValue is a metric's median at one label (e.g. firmware version)
// and its interval (e.g. the 95% interval or the run-to-run spread). A NaN
// Median leaves the label out of the series; NaN Lo and Hi draw no bar.
type TrendValue struct {
	Median, Lo, Hi float64
	// Thin marks the median hollow: a percentile some run had too few
	// samples for (display.Thin). Unclean marks it crossed: a run of it
	// was not clean.
	Thin, Unclean bool
}

// TrendSeries is one metric followed across the labels: Values has one
// entry per label, in the labels' order.
type TrendSeries struct {
	Name   string
	Family Family
	Values []TrendValue
}

// Trend draws metrics across ordered labels (firmware versions, kernel
// releases, dates): each series' medians as a line with markers and an
// error bar over its interval, series nudged apart sideways so their bars
// do not hide each other; the y axis is logarithmic when the values span
// more than a factor of ten. metric names the y axis with its unit, e.g.
// "p50 latency (µs)".
func Trend(title, metric string, labels []string, series []TrendSeries, caption Caption) (*Chart, error) {
	if metric == "" {
		return nil, fmt.Errorf("trend %q: empty metric: want the y axis' name and unit, such as \"p50 latency (µs)\"", title)
	}
	if len(labels) == 0 {
		return nil, fmt.Errorf("trend %q: no labels: want one per point in time, such as firmware versions", title)
	}
	names := make([]string, len(series))
	for i, s := range series {
		names[i] = s.Name
		if err := s.check(len(labels)); err != nil {
			return nil, fmt.Errorf("trend %q: %w", title, err)
		}
	}
	if err := checkNames(names); err != nil {
		return nil, fmt.Errorf("trend %q: %w", title, err)
	}
	p := newPlot("")
	ch := newChart(title, p, metric, caption)
	fitX := categoryX(p, labels)
	var marks caveatMarks
	for i, s := range series {
		st := styleFor(i, s.Family, 2)
		dx := (float64(i) - float64(len(series)-1)/2) * 0.08
		var run plotter.XYs
		var all plotter.XYs
		flush := func() error {
			ls, err := strokes(run, st.line)
			for _, l := range ls {
				p.Add(l)
			}
			run = nil
			return err
		}
		bars := &intervalPlot{style: draw.LineStyle{Color: st.line.Color, Width: 1.2}}
		for j, v := range s.Values {
			if math.IsNaN(v.Median) {
				if err := flush(); err != nil {
					return nil, fmt.Errorf("trend %q: series %q: %w", title, s.Name, err)
				}
				continue
			}
			pt := plotter.XY{X: float64(j) + dx, Y: v.Median}
			run, all = append(run, pt), append(all, pt)
			marks.put(pt.X, pt.Y, v.Thin, v.Unclean)
			if !math.IsNaN(v.Lo) {
				bars.bars = append(bars.bars, [3]float64{pt.X, v.Lo, v.Hi})
			}
		}
		if err := flush(); err != nil {
			return nil, fmt.Errorf("trend %q: series %q: %w", title, s.Name, err)
		}
		sc, err := plotter.NewScatter(all)
		if err != nil {
			return nil, fmt.Errorf("trend %q: series %q: %w", title, s.Name, err)
		}
		sc.GlyphStyle = st.glyph
		p.Add(bars, sc)
		ch.legend = append(ch.legend, legendEntry{s.Name, seriesThumbs(st)})
	}
	ch.legend = append(ch.legend, caveatLegend(marks.add(p))...)
	p.X.Min, p.X.Max = -0.5, float64(len(labels))-0.5
	// Series of sizes far apart (64 B and 64 KiB) share a log axis, where
	// each one's change reads as a ratio; a linear one would flatten the
	// small.
	var yRoom *axisRoom
	if p.Y.Min > 0 && p.Y.Max/p.Y.Min > 10 {
		yRoom = logYAxis(p)
	} else {
		yRoom = linearYAxis(p, false)
	}
	fitY := fitRooms(nil, yRoom)
	ch.fit = func(c draw.Canvas) { fitX(c); fitY(c) }
	return ch, nil
}

func (s TrendSeries) check(n int) error {
	if err := s.Family.check(); err != nil {
		return fmt.Errorf("series %q: %w", s.Name, err)
	}
	if len(s.Values) != n {
		return fmt.Errorf("series %q: %d values for %d labels: want one value per label (NaN median where none)", s.Name, len(s.Values), n)
	}
	some := false
	for j, v := range s.Values {
		if math.IsInf(v.Median, 0) || math.IsInf(v.Lo, 0) || math.IsInf(v.Hi, 0) ||
			math.IsNaN(v.Lo) != math.IsNaN(v.Hi) || v.Lo > v.Hi {
			return fmt.Errorf("series %q: value %d (median %v, interval [%v, %v]): want finite numbers with low <= high, NaN for none", s.Name, j+1, v.Median, v.Lo, v.Hi)
		}
		some = some || !math.IsNaN(v.Median)
	}
	if !some {
		return fmt.Errorf("series %q: every median is NaN: want at least one value", s.Name)
	}
	return nil
}

// intervalPlot draws vertical error bars with caps: {x, low, high}.
type intervalPlot struct {
	bars  [][3]float64
	style draw.LineStyle
}

// Plot implements plot.Plotter.
func (ip *intervalPlot) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, b := range ip.bars {
		x, lo, hi := trX(b[0]), trY(b[1]), trY(b[2])
		c.StrokeLine2(ip.style, x, lo, x, hi)
		c.StrokeLine2(ip.style, x-3, lo, x+3, lo)
		c.StrokeLine2(ip.style, x-3, hi, x+3, hi)
	}
}

// DataRange implements plot.DataRanger.
func (ip *intervalPlot) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, b := range ip.bars {
		xmin, xmax = math.Min(xmin, b[0]), math.Max(xmax, b[0])
		ymin, ymax = math.Min(ymin, b[1]), math.Max(ymax, b[2])
	}
	return
}

// strokePoints is the most points of one stroke of a line: the PNG
// rasterizer (golang/freetype) looks each cell a stroke covers up among
// the cells of its row so far, so one stroke of thousands of points, a
// trend over thousands of labels, took minutes (5,000 points: 71 s);
// strokes of 32 points, each starting where the last ended, take a second
// for 20,000.
const strokePoints = 32

// strokes returns the line through pts, with style, as strokes of at
// most strokePoints points; none for fewer than two points.
func strokes(pts plotter.XYs, style draw.LineStyle) ([]*plotter.Line, error) {
	var out []*plotter.Line
	for start := 0; start+1 < len(pts); start += strokePoints - 1 {
		l, err := plotter.NewLine(pts[start:min(len(pts), start+strokePoints)])
		if err != nil {
			return nil, err
		}
		l.LineStyle = style
		out = append(out, l)
	}
	return out, nil
}
