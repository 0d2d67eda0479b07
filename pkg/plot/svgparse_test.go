package plot

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// svgText is one <text> of an SVG with its baseline origin in the SVG's
// user space (y down), its font size and whether a transform rotates it.
type svgText struct {
	s       string
	x, y    float64
	size    float64
	bold    bool
	rotated bool
}

// affine is an SVG transform matrix [a c e; b d f].
type affine struct{ a, b, c, d, e, f float64 }

var identity = affine{a: 1, d: 1}

func (m affine) mul(n affine) affine {
	return affine{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

func (m affine) apply(x, y float64) (float64, float64) {
	return m.a*x + m.c*y + m.e, m.b*x + m.d*y + m.f
}

var transformRE = regexp.MustCompile(`(\w+)\(([^)]*)\)`)

// parseTransform reads the translate, scale and rotate functions the
// SVG writer uses.
func parseTransform(s string) (affine, error) {
	m := identity
	for _, f := range transformRE.FindAllStringSubmatch(s, -1) {
		var args []float64
		for _, a := range strings.FieldsFunc(f[2], func(r rune) bool { return r == ',' || r == ' ' }) {
			v, err := strconv.ParseFloat(a, 64)
			if err != nil {
				return m, fmt.Errorf("transform %q: %v", s, err)
			}
			args = append(args, v)
		}
		var n affine
		switch {
		case f[1] == "translate" && len(args) == 2:
			n = affine{a: 1, d: 1, e: args[0], f: args[1]}
		case f[1] == "scale" && len(args) == 2:
			n = affine{a: args[0], d: args[1]}
		case f[1] == "scale" && len(args) == 1:
			n = affine{a: args[0], d: args[0]}
		case f[1] == "rotate" && len(args) == 1:
			sin, cos := math.Sincos(args[0] * math.Pi / 180)
			n = affine{a: cos, b: sin, c: -sin, d: cos}
		default:
			return m, fmt.Errorf("transform %q: unknown function %s", s, f[0])
		}
		m = m.mul(n)
	}
	return m, nil
}

var fontSizeRE = regexp.MustCompile(`font-size:([0-9.]+)px`)

// svgVisitor receives what walkSVG finds: every start tag with its
// attributes and the transform in force (its own included), every run of
// character data, every end tag. A nil field is not called.
type svgVisitor struct {
	start func(name string, attr map[string]string, m affine)
	text  func(s string)
	end   func(name string)
}

// chartTexts renders a chart built by a constructor that returned ch and
// err, and parses its SVG's texts.
func chartTexts(t *testing.T, ch *Chart, err error) []svgText {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	b, err := ch.svgBytes()
	if err != nil {
		t.Fatal(err)
	}
	texts, _ := parseSVG(t, b)
	return texts
}

// walkSVG decodes b, which must be well-formed XML, for v and returns the
// root element's name.
func walkSVG(t *testing.T, b []byte, v svgVisitor) (root string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	stack := []affine{identity}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return root
		}
		if err != nil {
			t.Fatalf("SVG does not parse: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = el.Name.Local
			}
			m := stack[len(stack)-1]
			attr := map[string]string{}
			for _, a := range el.Attr {
				attr[a.Name.Local] = a.Value
			}
			if tr, ok := attr["transform"]; ok {
				n, err := parseTransform(tr)
				if err != nil {
					t.Fatal(err)
				}
				m = m.mul(n)
			}
			stack = append(stack, m)
			if v.start != nil {
				v.start(el.Name.Local, attr, m)
			}
		case xml.CharData:
			if v.text != nil {
				v.text(string(el))
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if v.end != nil {
				v.end(el.Name.Local)
			}
		}
	}
}

// parseSVG checks that b is well-formed XML with an <svg> root and
// returns its texts and its <title>.
func parseSVG(t *testing.T, b []byte) (texts []svgText, title string) {
	t.Helper()
	var cur *svgText
	inTitle := false
	root := walkSVG(t, b, svgVisitor{
		start: func(name string, attr map[string]string, m affine) {
			switch name {
			case "text":
				x, _ := strconv.ParseFloat(attr["x"], 64)
				y, _ := strconv.ParseFloat(attr["y"], 64)
				st := attr["style"]
				fs := fontSizeRE.FindStringSubmatch(st)
				if fs == nil {
					t.Fatalf("text without a font size: %q", st)
				}
				size, _ := strconv.ParseFloat(fs[1], 64)
				ax, ay := m.apply(x, y)
				cur = &svgText{x: ax, y: ay, size: size, bold: strings.Contains(st, "font-weight:bold"),
					rotated: math.Abs(m.b) > 1e-9 || math.Abs(m.c) > 1e-9}
			case "title":
				inTitle = true
			}
		},
		text: func(s string) {
			if cur != nil {
				cur.s += s
			}
			if inTitle {
				title += s
			}
		},
		end: func(name string) {
			if name == "text" && cur != nil {
				texts = append(texts, *cur)
				cur = nil
			}
			inTitle = false
		},
	})
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return texts, title
}

// box is a text's extent in user space (y down), from Liberation Sans'
// metrics: the advance widths of its characters, its ascent and descent.
type box struct{ x0, y0, x1, y1 float64 }

func textBox(tx svgText) box {
	f := sans(vg.Length(tx.size), tx.bold)
	face := font.DefaultCache.Lookup(f, f.Size)
	w := face.Width(tx.s).Points()
	e := face.Extents()
	return box{tx.x, tx.y - e.Ascent.Points(), tx.x + w, tx.y + e.Descent.Points()}
}

// overlaps says whether two boxes share more than a hairline.
func (a box) overlaps(b box) bool {
	const slack = 0.5
	return a.x0+slack < b.x1 && b.x0+slack < a.x1 && a.y0+slack < b.y1 && b.y0+slack < a.y1
}

// overlapping returns the pairs of unrotated texts whose boxes overlap.
func overlapping(texts []svgText) [][2]svgText {
	var flat []svgText
	for _, tx := range texts {
		if !tx.rotated && strings.TrimSpace(tx.s) != "" {
			flat = append(flat, tx)
		}
	}
	var out [][2]svgText
	for i := range flat {
		for j := i + 1; j < len(flat); j++ {
			if textBox(flat[i]).overlaps(textBox(flat[j])) {
				out = append(out, [2]svgText{flat[i], flat[j]})
			}
		}
	}
	return out
}

// checkNoOverlap fails when two unrotated texts' boxes overlap.
func checkNoOverlap(t *testing.T, name string, texts []svgText) {
	t.Helper()
	for _, p := range overlapping(texts) {
		t.Errorf("%s: texts %q at %+v and %q at %+v overlap", name, p[0].s, textBox(p[0]), p[1].s, textBox(p[1]))
	}
}

// textSet returns the texts' strings, trimmed.
func textSet(texts []svgText) map[string]int {
	m := map[string]int{}
	for _, tx := range texts {
		m[strings.TrimSpace(tx.s)]++
	}
	return m
}
