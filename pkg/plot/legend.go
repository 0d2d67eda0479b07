package plot

import (
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

// legendHeightBelow is the height of the legend laid out in columns
// under the plot.
func (ch *Chart) legendHeightBelow(width vg.Length) vg.Length {
	cols := ch.legendColumns(width)
	rows := (len(ch.legend) + cols - 1) / cols
	return vg.Length(rows) * entryHeight()
}

// drawLegend draws the entries into c, top down, filling cols columns
// row by row.
func (ch *Chart) drawLegend(c draw.Canvas, cols int) {
	eh := entryHeight()
	colW := c.Size().X / vg.Length(cols)
	if cols == 1 {
		colW = c.Size().X
	}
	sty := legendStyle
	sty.YAlign = draw.YCenter
	for i, e := range ch.legend {
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
