package plot

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"io"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// pngDPI makes a 720 pt wide chart 960 pixels wide.
const pngDPI = 96

// fontFallback names, after Liberation Sans, the metric-compatible fonts a
// viewer that lacks it will have, so SVG text keeps its layout.
var fontFallback = []byte("font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;")

// svgBytes renders the chart as a standalone SVG document.
func (ch *Chart) svgBytes() ([]byte, error) {
	if ch == nil || ch.plot == nil {
		return nil, errNilChart
	}
	c := vgsvg.New(ch.width, ch.height)
	if err := ch.render(draw.New(c)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("encoding chart %q as SVG: %w", ch.title, err)
	}
	b := bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"), fontFallback)
	// A <title> right after the opening tag names the picture for
	// screen readers and as a tooltip.
	if i := bytes.Index(b, []byte("<svg")); i >= 0 {
		if j := bytes.IndexByte(b[i:], '>'); j >= 0 {
			at := i + j + 1
			t := "\n<title>" + html.EscapeString(ch.title) + "</title>"
			b = append(b[:at:at], append([]byte(t), b[at:]...)...)
		}
	}
	return b, nil
}

// inlineSVG renders the chart as an <svg> element for an HTML page:
// without the XML prolog and comment.
func (ch *Chart) inlineSVG() ([]byte, error) {
	b, err := ch.svgBytes()
	if err != nil {
		return nil, err
	}
	if i := bytes.Index(b, []byte("<svg")); i > 0 {
		b = b[i:]
	}
	return b, nil
}

// pngBytes renders the chart as a PNG image.
func (ch *Chart) pngBytes() ([]byte, error) {
	if ch == nil || ch.plot == nil {
		return nil, errNilChart
	}
	c := vgimg.NewWith(vgimg.UseWH(ch.width, ch.height), vgimg.UseDPI(pngDPI),
		vgimg.UseBackgroundColor(color.White))
	if err := ch.render(draw.New(kernedCanvas{c})); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("encoding chart %q as PNG: %w", ch.title, err)
	}
	return buf.Bytes(), nil
}

// WriteSVG writes the chart to w as an SVG document.
func (ch *Chart) WriteSVG(w io.Writer) error {
	b, err := ch.svgBytes()
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("writing chart %q as SVG: %w", ch.title, err)
	}
	return nil
}

// WritePNG writes the chart to w as a PNG image.
func (ch *Chart) WritePNG(w io.Writer) error {
	b, err := ch.pngBytes()
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("writing chart %q as PNG: %w", ch.title, err)
	}
	return nil
}
