package plot

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rdma-bench/rdma-bench/pkg/report"
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
// than it needs (report.Thin).
func (c Caveat) thin(q float64) bool { return report.Thin(q, c.Samples) }

// The caveat marks: a thin point is drawn hollow (a white disc over its
// marker, whose outline stays), an unclean one crossed (a bold x over
// it), so that both read in grey-scale too.
var (
	hollowGlyph  = draw.GlyphStyle{Color: color.White, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
	crossGlyph   = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5.5), Shape: boldCross{}}
	thinThumb    = []plot.Thumbnailer{glyphThumb{draw.GlyphStyle{Color: grey, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}}, glyphThumb{hollowGlyph}}
	uncleanThumb = []plot.Thumbnailer{glyphThumb{draw.GlyphStyle{Color: grey, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}}, glyphThumb{crossGlyph}}
)

// boldCross is an x of 1.4 pt strokes (gonum's CrossGlyph draws 0.5 pt,
// too faint over a marker).
type boldCross struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (boldCross) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	ls := draw.LineStyle{Color: sty.Color, Width: vg.Points(1.4)}
	r := sty.Radius * 0.7071
	c.StrokeLine2(ls, pt.X-r, pt.Y-r, pt.X+r, pt.Y+r)
	c.StrokeLine2(ls, pt.X-r, pt.Y+r, pt.X+r, pt.Y-r)
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
		xy    plotter.XYs
		glyph draw.GlyphStyle
		label string
		thumb []plot.Thumbnailer
	}{{m.thin, hollowGlyph, report.ThinLegend, thinThumb}, {m.unclean, crossGlyph, report.UncleanLegend, uncleanThumb}} {
		if len(k.xy) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(k.xy)
		if err != nil {
			// The points were drawn already; a scatter of them fails only
			// on values the chart refused before.
			continue
		}
		sc.GlyphStyle = k.glyph
		p.Add(sc)
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
