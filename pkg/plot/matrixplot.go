package plot

import (
	"image/color"
	"math"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// matrixPlot draws a Grid's cells.
type matrixPlot struct {
	grid     Grid
	cmap     palette.ColorMap
	labelled bool
}

// DataRange implements plot.DataRanger.
func (m *matrixPlot) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(len(m.grid.Cols)) - 0.5, -0.5, float64(len(m.grid.Rows)) - 0.5
}

// Plot implements plot.Plotter.
func (m *matrixPlot) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	nr := len(m.grid.Rows)
	cellW, cellH := trX(1)-trX(0), trY(1)-trY(0)
	sty := textStyle(min(12, cellH*0.4), false, color.Black)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	for i, row := range m.grid.Values {
		for j, v := range row {
			x, y := trX(float64(j)), trY(float64(nr-1-i))
			r := vg.Rectangle{Min: vg.Point{X: x - cellW/2, Y: y - cellH/2}, Max: vg.Point{X: x + cellW/2, Y: y + cellH/2}}
			if math.IsNaN(v) {
				fillCell(&c, r, color.White, true)
				continue
			}
			clr, err := m.cmap.At(v)
			if err != nil {
				clr = color.Black // unreachable: the map spans every value
			}
			fillCell(&c, r, clr, false)
			if m.grid.Outlined != nil && m.grid.Outlined[i][j] {
				outlineCell(&c, r)
			}
			if !m.labelled {
				continue
			}
			s := display.Significant(v, 3)
			if m.grid.Marks != nil {
				s += m.grid.Marks[i][j]
			}
			ts := sty
			for ts.Width(s) > cellW*0.9 && ts.Font.Size > 6 {
				ts.Font.Size -= 0.5
			}
			if ts.Width(s) > cellW*0.9 {
				continue
			}
			ts.Color = color.Black
			if luminance(clr) < 0.45 {
				ts.Color = color.White
			}
			c.FillText(ts, vg.Point{X: x, Y: y}, s)
		}
	}
}

// colourBar is the side panel that maps a heat map's colours to values.
func colourBar(cmap palette.ColorMap, unit string) *sidePanel {
	tick := textStyle(9, false, color.Black)
	tick.YAlign = draw.YCenter
	unitSty := textStyle(10, false, color.Black)
	unitSty.Rotation, unitSty.XAlign, unitSty.YAlign = math.Pi/2, draw.XCenter, draw.YTop
	ticks := niceTicks(cmap.Min(), cmap.Max(), 6)
	var labelW vg.Length
	for _, t := range ticks {
		labelW = max(labelW, tick.Width(t.Label))
	}
	const barW = 14
	return &sidePanel{width: barW + 4 + labelW + 6 + unitSty.Height("Mg"), draw: func(c draw.Canvas) {
		lo, hi := cmap.Min(), cmap.Max()
		h := c.Size().Y
		const steps = 64
		for k := range steps {
			v := lo + (hi-lo)*(float64(k)+0.5)/steps
			clr, _ := cmap.At(v)
			r := vg.Rectangle{
				Min: vg.Point{X: c.Min.X, Y: c.Min.Y + h*vg.Length(k)/steps},
				Max: vg.Point{X: c.Min.X + barW, Y: c.Min.Y + h*vg.Length(k+1)/steps + 0.5},
			}
			c.SetColor(clr)
			c.Fill(r.Path())
		}
		ls := draw.LineStyle{Color: color.Black, Width: 0.5}
		for _, t := range ticks {
			if t.Label == "" || t.Value < lo || t.Value > hi {
				continue
			}
			y := c.Min.Y + h*vg.Length((t.Value-lo)/(hi-lo))
			c.StrokeLine2(ls, c.Min.X+barW, y, c.Min.X+barW+3, y)
			c.FillText(tick, vg.Point{X: c.Min.X + barW + 4, Y: y}, t.Label)
		}
		if unit != "" {
			c.FillText(unitSty, vg.Point{X: c.Max.X - unitSty.Height(unit), Y: c.Center().Y}, unit)
		}
	}}
}
