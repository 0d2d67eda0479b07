package plot

import (
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// kernedCanvas is the PNG canvas with text drawn a glyph at a time, each
// where gonum's measure of the text puts it (its advance and kerning
// scaled to the font's size). x/image's opentype.Face.Kern (v0.46.0)
// passes the font's units per em as the pixels per em, so the raster
// backend (gg) kerns every pair as if at 32 pixels to the em: the "11" of
// Liberation Sans by -2.4 px instead of -0.84 at 8.5 pt and 96 dpi, which
// tore "11" apart ("+1 1.7%", "2026-1 1-28"). The SVG is not concerned: a
// viewer lays out its text itself.
type kernedCanvas struct{ *vgimg.Canvas }

// FillString implements vg.Canvas: each glyph is drawn alone (no kerning
// applied by the backend) at the advance and kerning of the ones before.
func (c kernedCanvas) FillString(f font.Face, pt vg.Point, s string) {
	prev := ""
	for _, r := range s {
		cur := string(r)
		if prev != "" {
			// The width of the pair less that of cur: prev's advance and
			// the pair's kerning.
			pt.X += f.Width(prev+cur) - f.Width(cur)
		}
		c.Canvas.FillString(f, pt, cur)
		prev = cur
	}
}
