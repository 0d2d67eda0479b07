package plot

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Chart sizes in points: 720 pt is 960 pixels at the PNG's 96 dpi.
const (
	chartWidth  = vg.Length(720)
	chartHeight = vg.Length(450)
)

// newPlot returns a plot with the package's fonts, the given x axis label
// (which carries its unit) and a light grid at the labelled ticks. The
// chart draws the y axis label itself (see Chart.yLabel).
func newPlot(xLabel string) *plot.Plot {
	p := plot.New()
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(11, false)
		a.Label.Padding = 4
		a.Tick.Label.Font = sans(10, false)
		a.Tick.Label.Handler = legendStyle.Handler
		a.Label.TextStyle.Handler = legendStyle.Handler
	}
	p.X.Label.Text = xLabel
	g := plotter.NewGrid()
	g.Vertical = draw.LineStyle{Color: color.Gray{0xe6}, Width: 0.5}
	g.Horizontal = g.Vertical
	p.Add(g)
	return p
}

// newChart wraps p into a chart of the default size; yLabel names the y
// axis and its unit.
func newChart(title string, p *plot.Plot, yLabel string, caption Caption) *Chart {
	return &Chart{title: title, width: chartWidth, height: chartHeight, plot: p, yLabel: yLabel, caption: caption}
}

// roomFor returns the room of axis a, to be filled in by the chart's fit.
func roomFor(a *plot.Axis, vertical bool) *axisRoom {
	return &axisRoom{vertical: vertical, style: a.Tick.Label, scale: a.Scale}
}

// fitRooms returns a fit function that tells the x and y rooms (either
// may be nil) the data area's size.
func fitRooms(x, y *axisRoom) func(draw.Canvas) {
	return func(c draw.Canvas) {
		if x != nil {
			x.length = c.Size().X
		}
		if y != nil {
			y.length = c.Size().Y
		}
	}
}

// sizeAxis makes p's x axis a log byte-size axis over sizes.
func sizeAxis(p *plot.Plot, sizes []int) *axisRoom {
	p.X.Scale = plot.LogScale{}
	s := slices.Clone(sizes)
	slices.Sort(s)
	s = slices.Compact(s)
	r := roomFor(&p.X, false)
	p.X.Tick.Marker = sizeTicker{sizes: s, room: r}
	return r
}

// logYAxis makes p's y axis logarithmic, from and to 1, 2 or 5 times a
// power of ten so that both ends of the data have a label near them; call
// it after adding the data.
func logYAxis(p *plot.Plot) *axisRoom {
	p.Y.Scale = plot.LogScale{}
	p.Y.Min, p.Y.Max = niceLogBounds(widenLog(p.Y.Min, p.Y.Max))
	r := roomFor(&p.Y, true)
	p.Y.Tick.Marker = logTicker{room: r}
	return r
}

// linearYAxis gives p's y axis thinned default ticks from zero (or from the
// data's minimum if that is negative) with 5% headroom.
func linearYAxis(p *plot.Plot, fromZero bool) *axisRoom {
	if fromZero {
		p.Y.Min = math.Min(0, p.Y.Min)
	}
	if p.Y.Max <= p.Y.Min {
		p.Y.Max = p.Y.Min + 1
	}
	pad := (p.Y.Max - p.Y.Min) * 0.05
	if !fromZero || p.Y.Min < 0 {
		p.Y.Min -= pad
	}
	p.Y.Max += pad
	r := roomFor(&p.Y, true)
	p.Y.Tick.Marker = niceTicker{room: r, spacing: 45}
	return r
}

// niceLogBounds widens [lo, hi] (positive) outwards to the nearest 1, 2
// or 5 times a power of ten.
func niceLogBounds(lo, hi float64) (float64, float64) {
	steps := []float64{1, 2, 5, 10}
	e := math.Pow10(int(math.Floor(math.Log10(lo))))
	down := e
	for _, m := range steps {
		if m*e <= lo*(1+1e-9) {
			down = m * e
		}
	}
	e = math.Pow10(int(math.Floor(math.Log10(hi))))
	up := 10 * e
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i]*e >= hi*(1-1e-9) {
			up = steps[i] * e
		}
	}
	return down, up
}
