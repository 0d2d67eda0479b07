package plot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Chart is one finished picture: a plot with its title, legend and
// caption, ready to be written as SVG or PNG (Write, WriteSVG, WritePNG)
// or put into a Report. Make one with a chart function such as
// LatencyVsSize. Rendering lays the chart out anew each time, so one Chart
// must not be rendered from two goroutines at once.
type Chart struct {
	title         string
	width, height vg.Length
	plot          *plot.Plot
	// yLabel is drawn by the chart, not by gonum, whose padding for a
	// rotated label goes wrong on a log axis and squeezes the data.
	yLabel  string
	legend  []legendEntry
	side    *sidePanel
	caption Caption
	// fit adapts the axes (tick thinning, label rotation) to the data
	// area the layout left; it is called before the final draw.
	fit func(data draw.Canvas)
	// laidOut records where the last render put the data and the
	// legend (canvas coordinates, y up), for the tests.
	laidOut struct{ data, legend vg.Rectangle }
}

// legendEntry is one legend line; an entry with no label and no
// thumbnails is a blank line separating groups.
type legendEntry struct {
	label  string
	thumbs []plot.Thumbnailer
}

// sidePanel is drawn right of the data area (a matrix's colour bar).
type sidePanel struct {
	width vg.Length
	draw  func(c draw.Canvas)
}

// Title returns the chart's title.
func (ch *Chart) Title() string {
	if ch == nil {
		return ""
	}
	return ch.title
}

// Size returns the chart's width and height in points (1/72 inch).
func (ch *Chart) Size() (widthPt, heightPt float64) {
	if ch == nil {
		return 0, 0
	}
	return ch.width.Points(), ch.height.Points()
}

const (
	margin      = vg.Length(10)
	thumbWidth  = vg.Length(30)
	legendGap   = vg.Length(6)
	titleSize   = vg.Length(14)
	captionSize = vg.Length(8.5)
	legendSize  = vg.Length(10)
)

var (
	titleStyle   = textStyle(titleSize, true, color.Black)
	captionStyle = textStyle(captionSize, false, grey)
	legendStyle  = textStyle(legendSize, false, color.Black)
	// axisLabelStyle is the style of the axis titles.
	axisLabelStyle = textStyle(11, false, color.Black)
)

// render lays the chart out on c: title on top, caption at the bottom,
// legend right of the data (or below it when it is too wide), plot in
// the rest. It turns a panic of the drawing library into an error.
func (ch *Chart) render(c draw.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing chart %q: %v", ch.title, r)
		}
	}()
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	c = draw.Crop(c, margin, -margin, margin/2, -margin)
	body := ch.drawTitle(c)
	body = ch.drawCaption(body)

	plotArea := body
	legendW := ch.legendWidth()
	legendRight := legendW > 0 && legendW <= 0.3*body.Size().X
	var legendBelow vg.Length
	switch {
	case legendRight:
		plotArea = draw.Crop(body, 0, -(legendW + legendGap), 0, 0)
	case legendW > 0:
		legendBelow = ch.legendHeightBelow(body.Size().X, body.Size().Y)
		plotArea = draw.Crop(body, 0, 0, legendBelow+legendGap, 0)
	}
	if ch.side != nil {
		plotArea = draw.Crop(plotArea, 0, -(ch.side.width + legendGap), 0, 0)
	}
	yLabelSty := axisLabelStyle
	yLabelSty.Rotation = math.Pi / 2
	yLabelSty.XAlign, yLabelSty.YAlign = draw.XCenter, draw.YTop
	if ch.yLabel != "" {
		plotArea = draw.Crop(plotArea, axisLabelStyle.Height(ch.yLabel)+4, 0, 0, 0)
	}
	for range 2 {
		if ch.fit != nil {
			ch.fit(ch.plot.DataCanvas(plotArea))
		}
	}
	data := ch.plot.DataCanvas(plotArea)
	ch.laidOut.data, ch.laidOut.legend = data.Rectangle, vg.Rectangle{}
	if err := roomForData(data.Rectangle); err != nil {
		return fmt.Errorf("drawing chart %q: %w", ch.title, err)
	}
	ch.plot.Draw(plotArea)
	if ch.yLabel != "" {
		x := plotArea.Min.X - axisLabelStyle.Height(ch.yLabel) - 4
		c.FillText(yLabelSty, vg.Point{X: x, Y: data.Center().Y}, ch.yLabel)
	}
	if ch.side != nil {
		r := data.Rectangle
		r.Min.X = plotArea.Max.X + legendGap
		r.Max.X = r.Min.X + ch.side.width
		ch.side.draw(draw.Canvas{Canvas: c.Canvas, Rectangle: r})
	}
	switch {
	case legendRight:
		r := vg.Rectangle{
			Min: vg.Point{X: body.Max.X - legendW, Y: body.Min.Y},
			Max: vg.Point{X: body.Max.X, Y: data.Max.Y},
		}
		ch.drawLegend(draw.Canvas{Canvas: c.Canvas, Rectangle: r}, 1)
		ch.laidOut.legend = r
	case legendW > 0:
		r := vg.Rectangle{Min: body.Min, Max: vg.Point{X: body.Max.X, Y: body.Min.Y + legendBelow}}
		ch.drawLegend(draw.Canvas{Canvas: c.Canvas, Rectangle: r}, ch.legendColumns(body.Size().X))
		ch.laidOut.legend = r
	}
	return nil
}

// maxTitleLines bounds the title's lines, as maxCaptionLines the
// caption's.
const maxTitleLines = 2

// minDataSide is the least width and height of the data area a chart is
// drawn with.
const minDataSide = vg.Length(40)

// roomForData refuses a data area smaller than minDataSide either way, or
// not finite: the title, caption, legend and axes took the chart. Drawn
// anyway, gonum would place the data off the canvas by millions of points,
// and the PNG rasterizer, which walks every cell a path crosses, would
// never end.
func roomForData(r vg.Rectangle) error {
	w, h := r.Size().X, r.Size().Y
	if !(w >= minDataSide && h >= minDataSide) || math.IsInf(float64(w), 0) || math.IsInf(float64(h), 0) {
		return fmt.Errorf("no room left for the data (%.0f by %.0f pt, want at least %.0f by %.0f): the title, caption, legend and axes take the chart",
			float64(w), float64(h), float64(minDataSide), float64(minDataSide))
	}
	return nil
}

// drawTitle draws the title, wrapped to c's width in at most
// maxTitleLines lines, at the top of c and returns the rest of c.
func (ch *Chart) drawTitle(c draw.Canvas) draw.Canvas {
	if ch.title == "" {
		return c
	}
	sty := titleStyle
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	y := c.Max.Y
	lines := wrapWords(ch.title, sty, c.Size().X)
	if len(lines) > maxTitleLines {
		lines = lines[:maxTitleLines]
		lines[maxTitleLines-1] += " …"
	}
	for _, l := range lines {
		l = cutToWidth(l, sty, c.Size().X)
		c.FillText(sty, vg.Point{X: c.Center().X, Y: y}, l)
		y -= sty.Height(l)
	}
	c.Max.Y = y - 6
	return c
}

// drawCaption draws the caption lines at the bottom of c, under a thin
// rule, and returns the rest of c.
func (ch *Chart) drawCaption(c draw.Canvas) draw.Canvas {
	lines := ch.caption.lines(captionStyle, c.Size().X)
	if len(lines) == 0 {
		return c
	}
	sty := captionStyle
	sty.YAlign = draw.YBottom
	lh := sty.Height("Mg") * 1.15
	y := c.Min.Y + sty.FontExtents().Descent
	for i := len(lines) - 1; i >= 0; i-- {
		c.FillText(sty, vg.Point{X: c.Min.X, Y: y}, lines[i])
		y += lh
	}
	y += 2
	c.StrokeLine2(draw.LineStyle{Color: lightGrey, Width: 0.75}, c.Min.X, y, c.Max.X, y)
	c.Min.Y = y + 8
	return c
}
