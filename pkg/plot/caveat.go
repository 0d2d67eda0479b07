package plot

import (
	"image/color"
	"math"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Caveat is how far a drawn point can be trusted, as the tables mark it:
// the latency samples its percentiles are from (0: not known, or not a
// latency point) and whether a run of it was not clean (its port counters
// moved).
type Caveat struct {
	Samples int64
	Unclean bool
}

// thin says whether the percentile q of the point is from fewer samples
// than it needs (display.Thin).
func (c Caveat) thin(q float64) bool { return display.Thin(q, c.Samples) }

// The caveat marks: a thin point is drawn hollow (a white disc over its
// marker, whose outline stays) in a black ring (so that it reads apart
// from a series whose own mark is a ring), an unclean one crossed (a bold
// x over it), so that both read in grey-scale too.
var (
	hollowGlyph  = draw.GlyphStyle{Color: color.White, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
	haloGlyph    = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5.5), Shape: boldRing{}}
	crossGlyph   = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5.5), Shape: boldCross{}}
	thumbDot     = glyphThumb{draw.GlyphStyle{Color: grey, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}}
	thinThumb    = []plot.Thumbnailer{thumbDot, glyphThumb{hollowGlyph}, glyphThumb{haloGlyph}}
	uncleanThumb = []plot.Thumbnailer{thumbDot, glyphThumb{crossGlyph}}
)

// markStroke is the width of the caveat marks' strokes (gonum's
// CrossGlyph and RingGlyph draw 0.5 pt, too faint over a marker).
const markStroke = vg.Length(1.4)

// boldCross is an x of markStroke strokes.
type boldCross struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (boldCross) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	ls := draw.LineStyle{Color: sty.Color, Width: markStroke}
	r := sty.Radius * 0.7071
	c.StrokeLine2(ls, pt.X-r, pt.Y-r, pt.X+r, pt.Y+r)
	c.StrokeLine2(ls, pt.X-r, pt.Y+r, pt.X+r, pt.Y-r)
}

// boldRing is a circle of 1 pt stroke.
type boldRing struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (boldRing) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: 1})
	var p vg.Path
	p.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	p.Arc(pt, sty.Radius, 0, 2*math.Pi)
	p.Close()
	c.Stroke(p)
}

// caveatMarks gathers the points of a chart to mark, in data coordinates.
type caveatMarks struct{ thin, unclean plotter.XYs }

// mark records the point (x, y), a percentile q (0: not a percentile) of
// a point with caveat c.
func (m *caveatMarks) mark(x, y, q float64, c Caveat) {
	m.put(x, y, q > 0 && c.thin(q), c.Unclean)
}

// put records the point (x, y) as thin, unclean, both or neither.
func (m *caveatMarks) put(x, y float64, thin, unclean bool) {
	if thin {
		m.thin = append(m.thin, plotter.XY{X: x, Y: y})
	}
	if unclean {
		m.unclean = append(m.unclean, plotter.XY{X: x, Y: y})
	}
}

// add draws the marks over p's other plotters (call it last) and returns
// the legend's entries for the caveats drawn, none when none is.
func (m *caveatMarks) add(p *plot.Plot) []legendEntry {
	var out []legendEntry
	for _, k := range []struct {
		xy     plotter.XYs
		glyphs []draw.GlyphStyle
		label  string
		thumb  []plot.Thumbnailer
	}{{m.thin, []draw.GlyphStyle{hollowGlyph, haloGlyph}, display.ThinLegend, thinThumb},
		{m.unclean, []draw.GlyphStyle{crossGlyph}, display.UncleanLegend, uncleanThumb}} {
		if len(k.xy) == 0 {
			continue
		}
		for _, g := range k.glyphs {
			sc, err := plotter.NewScatter(k.xy)
			if err != nil {
				// The points were drawn already; a scatter of them fails
				// only on values the chart refused before.
				continue
			}
			sc.GlyphStyle = g
			p.Add(sc)
		}
		out = append(out, legendEntry{k.label, k.thumb})
	}
	return out
}

// caveatLegend is the legend's caveat entries after a blank line, or none.
func caveatLegend(entries []legendEntry) []legendEntry {
	if len(entries) == 0 {
		return nil
	}
	return append([]legendEntry{{}}, entries...)
}
