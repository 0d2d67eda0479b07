package plot

import (
	"image/color"
	"math"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// inkWidth draws s at 8.5 pt and 96 dpi on a PNG canvas, plain or glyph
// by glyph (kernedCanvas), and returns how many pixels wide its ink is.
func inkWidth(t *testing.T, s string, kerned bool) int {
	t.Helper()
	c := vgimg.NewWith(vgimg.UseWH(400, 40), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))
	var cv vg.CanvasSizer = c
	if kerned {
		cv = kernedCanvas{c}
	}
	dc := draw.New(cv)
	dc.FillText(captionStyle, vg.Point{X: 10, Y: 15}, s)
	img := c.Image()
	lo, hi := math.MaxInt, -1
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, _, _, _ := img.At(x, y).RGBA(); r < 0xc000 {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	}
	return hi - lo + 1
}

// A run of "1"s in a PNG is as wide as the text's measure says (the
// caption and tick labels are placed by it), not torn or squeezed by the
// raster backend's kerning at the wrong scale: ten "1"s were 14 pixels
// narrower than measured, each pair 1.5 pixels too close.
func TestPNGKerning(t *testing.T) {
	f := font.DefaultCache.Lookup(captionStyle.Font, captionStyle.Font.Size)
	const s = "1111111111"
	px := func(l vg.Length) float64 { return l.Dots(pngDPI) }
	// The ink of one "1", then the other nine at the measured advance.
	want := float64(inkWidth(t, "1", true)) + px(f.Width(s)-f.Width("1"))
	if got := float64(inkWidth(t, s, true)); math.Abs(got-want) > 1.5 {
		t.Errorf("ten 1s glyph by glyph: %v px of ink, want %.1f (the measure's)", got, want)
	}
	if got := float64(inkWidth(t, s, false)); math.Abs(got-want) < 5 {
		t.Logf("the backend's own kerning is right now (%v px, want %.1f): kernedCanvas may go", got, want)
	}
}
