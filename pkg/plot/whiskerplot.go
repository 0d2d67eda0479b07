package plot

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// whiskerPlot draws the rows of a comparison.
type whiskerPlot struct{ rows []Whisker }

// y is where row i sits: the first row on top.
func (wp *whiskerPlot) y(i int) float64 { return float64(len(wp.rows) - 1 - i) }

// DataRange implements plot.DataRanger: the changes, intervals,
// thresholds and zero, as log ratios (see logRatio).
func (wp *whiskerPlot) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = 0, 0
	for _, w := range wp.rows {
		for _, v := range []float64{w.DeltaPct, w.LoPct, w.HiPct} {
			if !math.IsNaN(v) {
				xmin, xmax = math.Min(xmin, logRatio(v)), math.Max(xmax, logRatio(v))
			}
		}
		if w.ThresholdPct != nil {
			xmin, xmax = math.Min(xmin, logRatio(*w.ThresholdPct)), math.Max(xmax, logRatio(*w.ThresholdPct))
		}
	}
	if xmin == xmax {
		xmin, xmax = logRatio(-1), logRatio(1)
	}
	return xmin, xmax, -0.5, float64(len(wp.rows)) - 0.5
}

// Plot implements plot.Plotter.
func (wp *whiskerPlot) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	rowH := trY(1) - trY(0)
	band := color.NRGBA{A: 14} // translucent, so the grid shows through
	for i := range wp.rows {
		if i%2 == 1 {
			y := trY(wp.y(i))
			r := vg.Rectangle{Min: vg.Point{X: c.Min.X, Y: y - rowH/2}, Max: vg.Point{X: c.Max.X, Y: y + rowH/2}}
			c.SetColor(band)
			c.Fill(r.Path())
		}
	}
	zero := draw.LineStyle{Color: color.Gray{0x88}, Width: 0.8}
	c.StrokeLine2(zero, trX(0), c.Min.Y, trX(0), c.Max.Y)
	for i, w := range wp.rows {
		y := trY(wp.y(i))
		if t := w.ThresholdPct; t != nil {
			x := trX(logRatio(*t))
			c.StrokeLine2(threshLine, x, y-rowH*0.38, x, y+rowH*0.38)
		}
		glyph, clr := outcomeMarks[w.mark()].glyph, color.Color(okColour)
		if w.Regression {
			clr = regressed
		}
		if !math.IsNaN(w.LoPct) {
			sty := draw.LineStyle{Color: clr, Width: 1.2}
			x0, x1 := trX(logRatio(w.LoPct)), trX(logRatio(w.HiPct))
			capH := rowH * 0.2
			c.StrokeLine2(sty, x0, y, x1, y)
			c.StrokeLine2(sty, x0, y-capH, x0, y+capH)
			c.StrokeLine2(sty, x1, y-capH, x1, y+capH)
		}
		c.DrawGlyphNoClip(glyph, vg.Point{X: trX(logRatio(w.DeltaPct)), Y: y})
	}
}
