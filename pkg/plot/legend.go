package plot

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// entryHeight is the height of one legend line.
func entryHeight() vg.Length { return legendStyle.Height("Mg") * 1.35 }

// entryWidth is the width one legend entry needs.
func entryWidth(e legendEntry) vg.Length {
	return thumbWidth + legendGap + legendStyle.Width(e.label)
}

// legendWidth is the width of the legend as one column, 0 without one.
func (ch *Chart) legendWidth() vg.Length {
	var w vg.Length
	for _, e := range ch.legend {
		w = max(w, entryWidth(e))
	}
	return w
}

// legendColumns is how many columns of entries fit in width.
func (ch *Chart) legendColumns(width vg.Length) int {
	colW := ch.legendWidth() + 2*legendGap
	n := int(math.Floor(float64(width / colW)))
	return max(1, min(n, len(ch.legend)))
}

// maxLegendBelow is the most of the chart's body a legend under the plot
// takes; entries past it are left out (fitLegend).
const maxLegendBelow = 0.35

// legendHeightBelow is the height of the legend laid out in columns
// under the plot, at most maxLegendBelow of height.
func (ch *Chart) legendHeightBelow(width, height vg.Length) vg.Length {
	cols := ch.legendColumns(width)
	rows := (len(ch.legend) + cols - 1) / cols
	rows = min(rows, max(1, int(height*maxLegendBelow/entryHeight())))
	return vg.Length(rows) * entryHeight()
}

// fitLegend returns the entries to draw where n fit: all of them when
// they fit; else the key (the entries from the last blank one on, which
// say what the line styles mean) whole, and of the entries before it the
// first ones, a line saying how many are left out and the last one. A
// chart of a thousand labels then has a legend as tall as its chart.
func fitLegend(entries []legendEntry, n int) []legendEntry {
	if len(entries) <= n {
		return entries
	}
	series, key := entries, []legendEntry(nil)
	for i := len(entries) - 1; i > 0; i-- {
		if e := entries[i]; e.label == "" && len(e.thumbs) == 0 {
			series, key = entries[:i], entries[i:]
			break
		}
	}
	if len(key)+3 > n {
		series, key = entries, nil
	}
	room := max(n-len(key), 1) // the series' lines, "… more" among them
	if room < 3 {
		return []legendEntry{{label: fmt.Sprintf("(%d entries: no room to name them)", len(series))}}
	}
	head := room - 2
	out := make([]legendEntry, 0, n)
	out = append(out, series[:head]...)
	out = append(out, legendEntry{label: fmt.Sprintf("… %d more", len(series)-head-1)})
	out = append(out, series[len(series)-1])
	return append(out, key...)
}

// drawLegend draws the entries that fit into c (fitLegend), top down,
// filling cols columns row by row.
func (ch *Chart) drawLegend(c draw.Canvas, cols int) {
	eh := entryHeight()
	colW := c.Size().X / vg.Length(cols)
	if cols == 1 {
		colW = c.Size().X
	}
	sty := legendStyle
	sty.YAlign = draw.YCenter
	rows := max(1, int(c.Size().Y/eh))
	for i, e := range fitLegend(ch.legend, rows*cols) {
		row, col := i/cols, i%cols
		x := c.Min.X + vg.Length(col)*colW
		yTop := c.Max.Y - vg.Length(row)*eh
		icon := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: yTop - eh + 2},
			Max: vg.Point{X: x + thumbWidth, Y: yTop - 2},
		}}
		for _, t := range e.thumbs {
			t.Thumbnail(&icon)
		}
		if e.label != "" {
			c.FillText(sty, vg.Point{X: x + thumbWidth + legendGap, Y: yTop - eh/2}, e.label)
		}
	}
}
