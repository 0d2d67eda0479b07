package plot

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// categoryX makes p's x axis show labels at 0, 1, 2, ... and returns a fit
// function that slants the labels by 45° when they would not fit side by
// side, and stands them upright when even that is too tight.
func categoryX(p *plot.Plot, labels []string) func(draw.Canvas) {
	var ticks plot.ConstantTicks
	for i, l := range labels {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: l})
	}
	p.X.Tick.Marker = ticks
	p.X.Min, p.X.Max = -0.5, float64(len(labels))-0.5
	base := p.X.Tick.Label
	return func(c draw.Canvas) {
		spacing := c.Size().X / vg.Length(len(labels))
		var widest vg.Length
		for _, l := range labels {
			widest = max(widest, base.Width(l))
		}
		sty := base
		h := base.Height("Mg")
		switch {
		case widest+labelGap <= spacing:
		case h*math.Sqrt2+labelGap/2 <= spacing:
			sty.Rotation, sty.XAlign, sty.YAlign = math.Pi/4, draw.XRight, draw.YTop
		default:
			sty.Rotation, sty.XAlign, sty.YAlign = math.Pi/2, draw.XRight, draw.YCenter
		}
		p.X.Tick.Label = sty
	}
}
