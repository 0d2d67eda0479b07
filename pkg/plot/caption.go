package plot

import (
	"strings"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// Caption is the metadata drawn in small print under a chart, so that a
// picture pasted into a bug report says what was measured where and when.
// Empty fields are left out.
type Caption struct {
	Device   string      // RDMA device and port, e.g. "mlx5_0 port 1"
	Firmware string      // NIC firmware version
	Host     string      // host name(s) of the run
	Date     string      // when the run was made, e.g. RFC 3339
	Tool     string      // tool and version, e.g. "rdma-bench v0.4.0"
	Extra    [][2]string // further key/value pairs, drawn in order
	// Notes are drawn whole after the items, each from a line of its
	// own (a heat map's footnotes, explaining its cells' marks).
	Notes []string
}

// items returns the caption as "key: value" strings.
func (c Caption) items() []string {
	var out []string
	add := func(k, v string) {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, k+": "+v)
		}
	}
	add("device", c.Device)
	add("firmware", c.Firmware)
	add("host", c.Host)
	add("date", c.Date)
	if t := strings.TrimSpace(c.Tool); t != "" {
		out = append(out, t)
	}
	for _, kv := range c.Extra {
		add(kv[0], kv[1])
	}
	return out
}

// captionSep separates a caption's items on a line.
const captionSep = "\u00a0\u00a0\u00a0·\u00a0\u00a0\u00a0"

// maxCaptionLines bounds the caption, so that however many hosts or
// labels it names the data keeps its room: what does not fit in them is
// left out, said with an ellipsis.
const maxCaptionLines = 4

// lines joins the caption's items into at most maxCaptionLines lines no
// wider than width, breaking between items (or inside an item too long
// for a line of its own).
func (c Caption) lines(sty text.Style, width vg.Length) []string {
	// No-break spaces: SVG viewers collapse runs of ordinary spaces.
	const sep = captionSep
	var out []string
	cur := ""
	for _, it := range c.items() {
		for _, piece := range wrapWords(it, sty, width) {
			piece = cutToWidth(piece, sty, width)
			switch {
			case cur == "":
				cur = piece
			case sty.Width(cur+sep+piece) <= width:
				cur += sep + piece
			default:
				out = append(out, cur)
				cur = piece
			}
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	if len(out) > maxCaptionLines {
		out = out[:maxCaptionLines]
		out[len(out)-1] = cutToWidth(out[len(out)-1]+sep+"…", sty, width)
	}
	for _, n := range c.Notes {
		for _, piece := range wrapWords(strings.TrimSpace(n), sty, width) {
			out = append(out, cutToWidth(piece, sty, width))
		}
	}
	return out
}

// cutToWidth returns s, or as much of it as fits in width followed by an
// ellipsis; the search is a bisection, so a long s costs a few
// measurements, not one per character.
func cutToWidth(s string, sty text.Style, width vg.Length) string {
	if sty.Width(s) <= width {
		return s
	}
	r := []rune(s)
	lo, hi := 0, len(r) // the longest prefix known to fit, and that may
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if sty.Width(string(r[:mid])+"…") <= width {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(r[:lo]) + "…"
}

// wrapWords breaks s at spaces into pieces no wider than width; a single
// word wider than width stays whole.
func wrapWords(s string, sty text.Style, width vg.Length) []string {
	if sty.Width(s) <= width {
		return []string{s}
	}
	var out []string
	cur := ""
	for _, w := range strings.Fields(s) {
		if cur != "" && sty.Width(cur+" "+w) > width {
			out = append(out, cur)
			cur = ""
		}
		if cur == "" {
			cur = w
		} else {
			cur += " " + w
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}
