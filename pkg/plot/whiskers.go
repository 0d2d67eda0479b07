package plot

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Whisker is one compared metric: its change against the baseline in per
// cent with the interval of that change (95%, or the Level given), the threshold it is held to
// (nil when none: not gated; a positive threshold flags rises, a negative
// one drops) and the gate's outcome: a regression, or inconclusive (the
// interval unknown or across the threshold), else within the threshold.
type Whisker struct {
	Label        string
	DeltaPct     float64
	LoPct, HiPct float64 // the interval; both NaN when unknown
	// Level is the interval's confidence as the tables write it
	// ("99.5%"); "" is 95%.
	Level        string
	ThresholdPct *float64
	Regression   bool
	Inconclusive bool
	// Thin marks the change hollow: a run on either side had too few
	// samples for the percentile (display.Thin). Unclean marks it crossed:
	// a run on either side was not clean and is among the values.
	Thin, Unclean bool
}

var (
	okColour     = seriesColours[0]
	okGlyph      = draw.GlyphStyle{Color: okColour, Radius: 3.5, Shape: draw.CircleGlyph{}}
	regGlyph     = draw.GlyphStyle{Color: regressed, Radius: 5, Shape: draw.PyramidGlyph{}}
	undecGlyph   = draw.GlyphStyle{Color: color.Black, Radius: 4, Shape: draw.RingGlyph{}}
	notGateGlyph = draw.GlyphStyle{Color: grey, Radius: 3.5, Shape: draw.BoxGlyph{}}
	threshLine   = draw.LineStyle{Color: color.Gray{0x33}, Width: 1.6}
)

// outcomeMarks are how a row's change is drawn by its outcome, and what
// the legend calls it, in the legend's order.
var outcomeMarks = []struct {
	glyph draw.GlyphStyle
	name  string
}{
	{okGlyph, "within threshold"}, {regGlyph, "regression"},
	{undecGlyph, "inconclusive"}, {notGateGlyph, "not gated (no threshold)"},
}

// mark is the index in outcomeMarks of the row's mark.
func (w Whisker) mark() int {
	switch {
	case w.Regression:
		return 1
	case w.Inconclusive:
		return 2
	case w.ThresholdPct == nil:
		return 3
	}
	return 0
}

// ComparisonWhiskers draws one row per metric, first on top: a mark at the
// change in per cent, a whisker over its 95% interval, a short bar at its
// threshold, on a log-ratio axis (see logRatio) labelled in per cent. The mark says the gate's outcome by its shape as well as its
// colour, so that it reads in grey-scale too: a filled red triangle for a
// regression, a ring for an inconclusive row, a blue dot within the
// threshold, a grey square where no threshold applies. The change is also
// written right of the plot. The chart grows with the rows so that 40
// labels stay readable.
func ComparisonWhiskers(title string, rows []Whisker, caption Caption) (*Chart, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("comparison %q: no rows: want at least one metric", title)
	}
	for i, w := range rows {
		if err := w.check(); err != nil {
			return nil, fmt.Errorf("comparison %q: row %d: %w", title, i+1, err)
		}
	}
	p := newPlot("change against baseline (%, log-ratio scale)")
	ch := newChart(title, p, "", caption)
	ch.height = max(chartHeight, vg.Length(len(rows))*15+150)
	wp := &whiskerPlot{rows: rows}
	p.Add(wp)
	var marks caveatMarks
	for i, w := range rows {
		marks.put(logRatio(w.DeltaPct), wp.y(i), w.Thin, w.Unclean)
	}
	caveats := marks.add(p)
	p.Y.Min, p.Y.Max = -0.5, float64(len(rows))-0.5
	p.Y.Padding = 0
	p.Y.Tick.Label.Font = sans(9, false)
	var ticks plot.ConstantTicks
	for i, w := range rows {
		ticks = append(ticks, plot.Tick{Value: wp.y(i), Label: w.Label})
	}
	p.Y.Tick.Marker = ticks
	xRoom := roomFor(&p.X, false)
	pad := (p.X.Max - p.X.Min) * 0.05
	p.X.Min, p.X.Max = p.X.Min-pad, p.X.Max+pad
	p.X.Tick.Marker = ratioTicker{room: xRoom}
	ch.fit = fitRooms(xRoom, nil)
	valueSty := textStyle(9, false, color.Black)
	valueSty.XAlign, valueSty.YAlign = draw.XRight, draw.YCenter
	// A regression's change is red and bold: red alone turns light grey
	// in a grey-scale print, fainter than the others.
	regSty := valueSty
	regSty.Color, regSty.Font = regressed, sans(9, true)
	width := regSty.Width("+000.0%")
	for _, w := range rows {
		width = max(width, regSty.Width(signed(w.DeltaPct, 1)+"%"))
	}
	ch.side = &sidePanel{width: width, draw: func(c draw.Canvas) {
		for i, w := range rows {
			sty := valueSty
			if w.Regression {
				sty = regSty
			}
			y := c.Min.Y + c.Size().Y*vg.Length((wp.y(i)-p.Y.Min)/(p.Y.Max-p.Y.Min))
			c.FillText(sty, vg.Point{X: c.Max.X, Y: y}, signed(w.DeltaPct, 1)+"%")
		}
	}}
	whisk := draw.LineStyle{Color: grey, Width: 1.2}
	// The outcomes the rows have, then the whisker and the threshold if
	// drawn.
	seen := make([]bool, len(outcomeMarks))
	for _, w := range rows {
		seen[w.mark()] = true
	}
	for i, m := range outcomeMarks {
		if seen[i] {
			ch.legend = append(ch.legend, legendEntry{m.name, []plot.Thumbnailer{glyphThumb{m.glyph}}})
		}
	}
	if slices.ContainsFunc(rows, func(w Whisker) bool { return !math.IsNaN(w.LoPct) }) {
		ch.legend = append(ch.legend, legendEntry{intervalName(rows), []plot.Thumbnailer{whiskerThumb{whisk}}})
	}
	if slices.ContainsFunc(rows, func(w Whisker) bool { return w.ThresholdPct != nil }) {
		ch.legend = append(ch.legend, legendEntry{"threshold", []plot.Thumbnailer{barThumb{threshLine}}})
	}
	ch.legend = append(ch.legend, caveats...)
	return ch, nil
}

func (w Whisker) check() error {
	if w.Label == "" {
		return fmt.Errorf("empty label: want the metric's name, such as \"write_lat 64 p99\"")
	}
	// A change is a ratio new/base minus one: above -100%.
	if !(w.DeltaPct > -100) || math.IsInf(w.DeltaPct, 0) {
		return fmt.Errorf("%q: change %v%%: want a finite number above -100", w.Label, w.DeltaPct)
	}
	switch lo, hi := w.LoPct, w.HiPct; {
	case math.IsNaN(lo) && math.IsNaN(hi):
	case !(lo > -100) || math.IsNaN(hi) || math.IsInf(hi, 0) || lo > hi:
		return fmt.Errorf("%q: interval [%v%%, %v%%]: want finite bounds above -100, low <= high, or both NaN when unknown", w.Label, lo, hi)
	}
	if t := w.ThresholdPct; t != nil && (!(*t > -100) || math.IsInf(*t, 0)) {
		return fmt.Errorf("%q: threshold %v%%: want a finite number above -100", w.Label, *t)
	}
	return nil
}

// signed writes v with a sign and prec decimals: +3.2, -0.5, 0.0.
func signed(v float64, prec int) string {
	s := fmt.Sprintf("%+.*f", prec, v)
	if z := fmt.Sprintf("%+.*f", prec, 0.0); s == z || s == "-"+z[1:] {
		return z[1:]
	}
	return s
}

// intervalName is the legend's name of the rows' intervals: "95%
// interval", the level they share ("99.5% interval"), or "interval (each
// row's confidence)" when their levels differ (a gate's rows, each at the
// confidence its looks spent).
func intervalName(rows []Whisker) string {
	level := ""
	for i, w := range rows {
		l := cmp.Or(w.Level, "95%")
		if i > 0 && l != level {
			return "interval (each row's confidence)"
		}
		level = l
	}
	return level + " interval"
}
