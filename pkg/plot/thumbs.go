package plot

import (
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// lineThumb draws a legend sample of a line style.
type lineThumb struct{ draw.LineStyle }

// Thumbnail implements plot.Thumbnailer.
func (t lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(t.LineStyle, c.Min.X, y, c.Max.X, y)
}

// glyphThumb draws a legend sample of a marker.
type glyphThumb struct{ draw.GlyphStyle }

// Thumbnail implements plot.Thumbnailer.
func (t glyphThumb) Thumbnail(c *draw.Canvas) {
	c.DrawGlyphNoClip(t.GlyphStyle, c.Center())
}

// whiskerThumb draws a legend sample of an interval: a horizontal line
// with end caps.
type whiskerThumb struct{ draw.LineStyle }

// Thumbnail implements plot.Thumbnailer.
func (t whiskerThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	x0, x1 := c.Min.X+4, c.Max.X-4
	c.StrokeLine2(t.LineStyle, x0, y, x1, y)
	c.StrokeLine2(t.LineStyle, x0, y-3, x0, y+3)
	c.StrokeLine2(t.LineStyle, x1, y-3, x1, y+3)
}

// barThumb draws a legend sample of a short vertical mark.
type barThumb struct{ draw.LineStyle }

// Thumbnail implements plot.Thumbnailer.
func (t barThumb) Thumbnail(c *draw.Canvas) {
	x := c.Center().X
	c.StrokeLine2(t.LineStyle, x, c.Min.Y, x, c.Max.Y)
}

// swatchThumb draws a legend sample of a filled cell, hatched when the
// cell means "no data".
type swatchThumb struct {
	fill    color.Color
	hatch   bool
	outline bool // outlined as a matrix's marked cell (outlineCell)
}

// Thumbnail implements plot.Thumbnailer.
func (t swatchThumb) Thumbnail(c *draw.Canvas) {
	r := vg.Rectangle{Min: vg.Point{X: c.Center().X - 7, Y: c.Min.Y}, Max: vg.Point{X: c.Center().X + 7, Y: c.Max.Y}}
	fillCell(c, r, t.fill, t.hatch)
	if t.outline {
		outlineCell(c, r)
	}
}

// outlineCell draws a heavy red border inside r: a matrix's cell whose
// figure carries a caveat (Grid.Outlined).
func outlineCell(c *draw.Canvas, r vg.Rectangle) {
	w := min(2.5, r.Size().X/6, r.Size().Y/6)
	in := vg.Rectangle{Min: vg.Point{X: r.Min.X + w/2, Y: r.Min.Y + w/2}, Max: vg.Point{X: r.Max.X - w/2, Y: r.Max.Y - w/2}}
	c.SetLineStyle(draw.LineStyle{Color: regressed, Width: w})
	c.Stroke(in.Path())
}

// fillCell fills r with clr, hatched with grey diagonals if hatch, and
// outlines it.
func fillCell(c *draw.Canvas, r vg.Rectangle, clr color.Color, hatch bool) {
	c.SetColor(clr)
	c.Fill(r.Path())
	if hatch {
		cc := draw.Canvas{Canvas: c.Canvas, Rectangle: r}
		sty := draw.LineStyle{Color: color.Gray{0x99}, Width: 0.6}
		w, h := r.Size().X, r.Size().Y
		for d := vg.Length(0); d < w+h; d += 4 {
			pts := cc.ClipLinesXY([]vg.Point{{X: r.Min.X + d - h, Y: r.Min.Y}, {X: r.Min.X + d, Y: r.Max.Y}})
			cc.StrokeLines(sty, pts...)
		}
	}
	c.SetLineStyle(draw.LineStyle{Color: color.White, Width: 0.5})
	c.Stroke(r.Path())
}
