package plot

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// categoryX makes p's x axis show labels at 0, 1, 2, ... and returns a fit
// function that slants the labels by 45° when they would not fit side by
// side, stands them upright when even that is too tight, and labels only
// every k-th (k 2, 5, 10, 20, 50, ...) when upright ones do not fit either:
// a trend over a thousand labels names every fiftieth or so.
func categoryX(p *plot.Plot, labels []string) func(draw.Canvas) {
	p.X.Tick.Marker = categoryTicks(labels, 1, true)
	p.X.Min, p.X.Max = -0.5, float64(len(labels))-0.5
	base := p.X.Tick.Label
	var widest vg.Length
	for _, l := range labels {
		widest = max(widest, base.Width(l))
	}
	return func(c draw.Canvas) {
		spacing := c.Size().X / vg.Length(len(labels))
		sty := base
		h := base.Height("Mg")
		step := 1
		switch {
		case widest+labelGap <= spacing:
		case h*math.Sqrt2+labelGap/2 <= spacing:
			sty.Rotation, sty.XAlign, sty.YAlign = math.Pi/4, draw.XRight, draw.YTop
		default:
			sty.Rotation, sty.XAlign, sty.YAlign = math.Pi/2, draw.XRight, draw.YCenter
			step = categoryStep(float64((h+labelGap/2)/spacing), len(labels))
		}
		p.X.Tick.Label = sty
		// Ticks closer than a point apart would blacken the axis.
		p.X.Tick.Marker = categoryTicks(labels, step, spacing >= 1)
	}
}

// categoryStep is the least of 1, 2, 5, 10, 20, 50, ... at or above need,
// and n (every label but the first left out) when none below n is.
func categoryStep(need float64, n int) int {
	for e := 1; e < n; e *= 10 {
		for _, m := range []int{1, 2, 5} {
			if float64(m*e) >= need {
				return min(m*e, max(n, 1))
			}
		}
	}
	return max(n, 1)
}

// categoryTicks marks the categories, labelling every step-th; the others
// get an unlabelled tick when minor.
func categoryTicks(labels []string, step int, minor bool) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	for i, l := range labels {
		switch {
		case i%step == 0:
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: l})
		case minor:
			ticks = append(ticks, plot.Tick{Value: float64(i)})
		}
	}
	return ticks
}
