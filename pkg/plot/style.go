package plot

import (
	"fmt"
	"image/color"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Family says which transport a series measured. TCP series are drawn
// dashed and RDMA series solid, so the two read apart in grey-scale too.
type Family string

// The families a series can belong to. An empty Family is drawn solid,
// like RDMA.
const (
	RDMA Family = "RDMA"
	TCP  Family = "TCP"
)

func (f Family) check() error {
	switch f {
	case RDMA, TCP, "":
		return nil
	}
	return fmt.Errorf("family %q: want %q, %q or empty", string(f), RDMA, TCP)
}

// seriesColours is Okabe and Ito's colour-blind-safe set without its yellow
// (too light on white), ordered so that the first three, the usual
// write/read/send, are far apart in lightness too (grey 37%, 64%, 0%).
var seriesColours = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
}

// glyphs give each series a marker shape of its own, so series of one
// family still read apart without colour. Filled shapes first: outlines
// are faint at this size. One more shape than colours, so that the eighth
// series (four workloads under two labels) is not the first again.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.PyramidGlyph{}, draw.BoxGlyph{},
	draw.RingGlyph{}, draw.CrossGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{}, draw.SquareGlyph{},
}

var (
	grey      = color.RGBA{0x55, 0x55, 0x55, 0xff}
	lightGrey = color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
	regressed = color.RGBA{0xC0, 0x1B, 0x1B, 0xff}
	tcpDashes = []vg.Length{vg.Points(6), vg.Points(3)}
)

// seriesStyle is how the i-th series of a chart is drawn.
type seriesStyle struct {
	line  draw.LineStyle
	glyph draw.GlyphStyle
}

func styleFor(i int, f Family, width vg.Length) seriesStyle {
	c := seriesColours[i%len(seriesColours)]
	s := seriesStyle{
		line:  draw.LineStyle{Color: c, Width: width},
		glyph: draw.GlyphStyle{Color: c, Radius: vg.Points(3.5), Shape: glyphs[i%len(glyphs)]},
	}
	if f == TCP {
		s.line.Dashes = tcpDashes
	}
	return s
}

// faded returns c with its alpha scaled by a (0..1).
func faded(c color.Color, a float64) color.Color {
	r, g, b, al := c.RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(float64(al>>8) * a)}
}

// sans is the typeface of every text: Liberation Sans ships with gonum
// and is metric-compatible with Arial and Helvetica, so an SVG viewer that
// lacks it lays the text out the same.
func sans(size vg.Length, bold bool) font.Font {
	f := font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
	if bold {
		f.Weight = xfont.WeightBold
	}
	return f
}

func textStyle(size vg.Length, bold bool, c color.Color) text.Style {
	return text.Style{
		Color:   c,
		Font:    sans(size, bold),
		Handler: text.Plain{Fonts: font.DefaultCache},
	}
}

// seriesThumbs is the legend sample of a series: its line and marker.
func seriesThumbs(s seriesStyle) []plot.Thumbnailer {
	return []plot.Thumbnailer{lineThumb{s.line}, glyphThumb{s.glyph}}
}
