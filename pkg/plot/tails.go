package plot

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// tailStyles are how a series' p99 and p99.9 are drawn: thin lines of its
// colour and dashes with small marks of its shape, so that each tail is
// told to its series in grey-scale too, the p99.9 at half strength.
func tailStyles(s seriesStyle) (p99, p99_9 seriesStyle) {
	p99 = s
	p99.line.Width = 0.9
	p99.glyph.Radius = vg.Points(2.5)
	p99_9 = p99
	p99_9.line.Color = faded(s.line.Color, 0.5)
	p99_9.glyph.Color = faded(s.glyph.Color, 0.5)
	return p99, p99_9
}

// addTails adds a series' p99 and p99.9 lines (either may be empty) to p,
// and records in drawn which of the two it drew.
func addTails(p *plot.Plot, st seriesStyle, p99, p99_9 plotter.XYs, drawn *[2]bool) error {
	s99, s999 := tailStyles(st)
	for i, t := range []struct {
		sty seriesStyle
		xy  plotter.XYs
	}{{s999, p99_9}, {s99, p99}} {
		if len(t.xy) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(t.xy)
		if err != nil {
			return err
		}
		l.LineStyle, sc.GlyphStyle = t.sty.line, t.sty.glyph
		p.Add(l, sc)
		drawn[1-i] = true
	}
	return nil
}

// percentileLegend is the legend's key to the percentiles: a blank line,
// then p50 and the tails drawn, in grey.
func percentileLegend(drawn [2]bool) []legendEntry {
	g := seriesStyle{line: draw.LineStyle{Color: grey, Width: 2},
		glyph: draw.GlyphStyle{Color: grey, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}}
	p99, p99_9 := tailStyles(g)
	out := []legendEntry{{}, {"p50 (median)", []plot.Thumbnailer{lineThumb{g.line}}}}
	if drawn[0] {
		out = append(out, legendEntry{"p99", seriesThumbs(p99)})
	}
	if drawn[1] {
		out = append(out, legendEntry{"p99.9", seriesThumbs(p99_9)})
	}
	return out
}
