package plot

import (
	"fmt"
	"math"
	"slices"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// LoadPoint is the latency of an open-loop run at one offered rate, in
// microseconds from each operation's due time. P99US and P99_9US may be
// NaN when not measured.
type LoadPoint struct {
	OfferedOPS float64
	P50US      float64
	P99US      float64
	P99_9US    float64
	// Caveat marks a percentile from too few samples hollow and an
	// unclean point crossed.
	Caveat
}

// LoadCurve is one point's latency against offered load, e.g. write_lat
// at 64 B run at 2000, 5000 and 10000 operations a second.
type LoadCurve struct {
	Name   string
	Family Family
	Points []LoadPoint
	// ClosedP50US is the p50 of the same point run closed loop (as fast
	// as it completes, one operation at a time), drawn as a horizontal
	// reference line; NaN when there is none.
	ClosedP50US float64
	// KneeOPS is the first offered rate past the curve's knee (where the
	// run fell behind the schedule or its tail took off), marked by a
	// vertical line; 0 when there is no knee.
	KneeOPS float64
}

// Line styles of the load chart's reference marks.
var (
	closedDashes = []vg.Length{vg.Points(1.5), vg.Points(3)}
	kneeDashes   = []vg.Length{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}
)

// LatencyVsLoad draws latency against offered load on log-log axes: each
// curve's p50 as a thick line with markers, its p99 thin with small marks
// and its p99.9 thin and faint, in the curve's colour and shape (dashed
// for TCP); its closed-loop p50 as a dotted horizontal line and its knee
// as a dash-dotted vertical line in the same colour. The legend names the
// percentiles drawn.
func LatencyVsLoad(title string, curves []LoadCurve, caption Caption) (*Chart, error) {
	names := make([]string, len(curves))
	var rates []float64
	for i, c := range curves {
		names[i] = c.Name
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("load chart %q: %w", title, err)
		}
		for _, pt := range c.Points {
			rates = append(rates, pt.OfferedOPS)
		}
	}
	if err := checkNames(names); err != nil {
		return nil, fmt.Errorf("load chart %q: %w", title, err)
	}
	p := newPlot("offered load (operations/s)")
	ch := newChart(title, p, "latency (µs)", caption)
	xRoom := rateAxis(p, rates)
	var front []plot.Plotter
	knees, closed := 0, 0
	var tails [2]bool // some p99, some p99.9 to draw
	var marks caveatMarks
	for i, c := range curves {
		pts := slices.Clone(c.Points)
		slices.SortFunc(pts, func(a, b LoadPoint) int { return cmpFloat(a.OfferedOPS, b.OfferedOPS) })
		st := styleFor(i, c.Family, 2)
		if err := addTails(p, st, loadXYs(pts, func(p LoadPoint) float64 { return p.P99US }),
			loadXYs(pts, func(p LoadPoint) float64 { return p.P99_9US }), &tails); err != nil {
			return nil, fmt.Errorf("load chart %q: curve %q: %w", title, c.Name, err)
		}
		l, sc, err := plotter.NewLinePoints(loadXYs(pts, func(p LoadPoint) float64 { return p.P50US }))
		if err != nil {
			return nil, fmt.Errorf("load chart %q: curve %q: %w", title, c.Name, err)
		}
		l.LineStyle, sc.GlyphStyle = st.line, st.glyph
		front = append(front, l, sc)
		if !math.IsNaN(c.ClosedP50US) {
			p.Add(&refLine{y: c.ClosedP50US, style: draw.LineStyle{Color: st.line.Color, Width: 1.2, Dashes: closedDashes}})
			closed++
		}
		if c.KneeOPS > 0 {
			p.Add(&refLine{vertical: true, x: c.KneeOPS, style: draw.LineStyle{Color: st.line.Color, Width: 1.2, Dashes: kneeDashes}})
			knees++
		}
		ch.legend = append(ch.legend, legendEntry{c.Name, seriesThumbs(st)})
		for _, pt := range pts {
			markPercentiles(&marks, pt.OfferedOPS, pt.Caveat, pt.P50US, pt.P99US, pt.P99_9US)
		}
	}
	p.Add(front...)
	caveats := marks.add(p)
	ch.legend = append(ch.legend, percentileLegend(tails)...)
	// With one curve the legend gives the figures too.
	closedLabel, kneeLabel := "closed-loop p50", "knee (first rate past it)"
	if len(curves) == 1 {
		closedLabel = "closed-loop p50: " + display.Significant(curves[0].ClosedP50US, 4) + " µs"
		kneeLabel = "knee: " + FormatRate(curves[0].KneeOPS) + " ops/s"
	}
	if closed > 0 {
		ch.legend = append(ch.legend, greyLine(closedLabel, closedDashes))
	}
	if knees > 0 {
		ch.legend = append(ch.legend, greyLine(kneeLabel, kneeDashes))
	}
	ch.legend = append(ch.legend, caveats...)
	yRoom := logYAxis(p)
	ch.fit = fitRooms(xRoom, yRoom)
	return ch, nil
}

func (c LoadCurve) check() error {
	if err := c.Family.check(); err != nil {
		return fmt.Errorf("curve %q: %w", c.Name, err)
	}
	if len(c.Points) == 0 {
		return fmt.Errorf("curve %q: no points: want at least one offered rate", c.Name)
	}
	for _, pt := range c.Points {
		if err := checkPositive(c.Name, "offered rate", pt.OfferedOPS, " ops/s"); err != nil {
			return err
		}
		at := " at " + FormatRate(pt.OfferedOPS) + " ops/s"
		if err := checkLatencies(c.Name, at, pt.P50US, pt.P99US, pt.P99_9US); err != nil {
			return err
		}
	}
	if !math.IsNaN(c.ClosedP50US) {
		if err := checkPositive(c.Name, "closed-loop p50 latency", c.ClosedP50US, " µs"); err != nil {
			return err
		}
	}
	if c.KneeOPS != 0 {
		if err := checkPositive(c.Name, "knee", c.KneeOPS, " ops/s (0 for none)"); err != nil {
			return err
		}
	}
	return nil
}

// loadXYs returns the (rate, get(point)) pairs whose value is not NaN.
func loadXYs(pts []LoadPoint, get func(LoadPoint) float64) plotter.XYs {
	var xy plotter.XYs
	for _, p := range pts {
		if v := get(p); !math.IsNaN(v) {
			xy = append(xy, plotter.XY{X: p.OfferedOPS, Y: v})
		}
	}
	return xy
}

// refLine is a horizontal line at y, or a vertical one at x, across the
// data area.
type refLine struct {
	vertical bool
	x, y     float64
	style    draw.LineStyle
}

// Plot implements plot.Plotter.
func (r *refLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	if r.vertical {
		x := trX(r.x)
		c.StrokeLine2(r.style, x, c.Min.Y, x, c.Max.Y)
		return
	}
	y := trY(r.y)
	c.StrokeLine2(r.style, c.Min.X, y, c.Max.X, y)
}

// DataRange implements plot.DataRanger: the line's one coordinate, and
// nothing along it.
func (r *refLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	if r.vertical {
		xmin, xmax = r.x, r.x
	} else {
		ymin, ymax = r.y, r.y
	}
	return
}

// checkLatencies checks a curve point's percentiles, at names the point:
// p50 positive, p99 and p99.9 positive or NaN (not measured).
func checkLatencies(name, at string, p50, p99, p999 float64) error {
	if err := checkPositive(name, "p50 latency"+at, p50, " µs"); err != nil {
		return err
	}
	for i, v := range []float64{p99, p999} {
		if !math.IsNaN(v) {
			if err := checkPositive(name, []string{"p99", "p99.9"}[i]+" latency"+at, v, " µs"); err != nil {
				return err
			}
		}
	}
	return nil
}

// greyLine is a legend entry for a grey marker line (the closed-loop
// p50, the knee) drawn with dashes.
func greyLine(label string, dashes []vg.Length) legendEntry {
	return legendEntry{label, []plot.Thumbnailer{lineThumb{draw.LineStyle{Color: grey, Width: 1.2, Dashes: dashes}}}}
}
