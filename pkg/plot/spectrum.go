package plot

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// SpectrumPoint is one line of an HdrHistogram percentile distribution:
// the latency at or below which Percentile (0..100) per cent of the
// samples fell.
type SpectrumPoint struct {
	Percentile float64
	ValueUS    float64
}

// SpectrumCurve is one latency distribution, e.g. "write_lat 64" or
// "baseline 20.38.1002".
type SpectrumCurve struct {
	Name   string
	Family Family
	Points []SpectrumPoint
	// Unclean crosses the curve's marks: a run of it was not clean. (A
	// spectrum goes only as far as its samples tell: nothing on it is
	// thin.)
	Unclean bool
}

// Spectrum draws HdrHistogram's percentile spectrum: latency against
// 1/(1-p) on a log axis labelled 50%, 90%, 99%, 99.9%, ... so that every
// "nine" of the tail gets the same room. The latency axis is logarithmic
// when the values span more than a factor of ten, linear otherwise. A
// 100% point (the maximum) has no place on that axis: it is given in the
// legend as "max".
func Spectrum(title string, curves []SpectrumCurve, caption Caption) (*Chart, error) {
	names := make([]string, len(curves))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, c := range curves {
		names[i] = c.Name
		if err := c.Family.check(); err != nil {
			return nil, fmt.Errorf("spectrum %q: series %q: %w", title, c.Name, err)
		}
		n := 0
		for _, pt := range c.Points {
			if math.IsNaN(pt.Percentile) || pt.Percentile < 0 || pt.Percentile > 100 {
				return nil, fmt.Errorf("spectrum %q: series %q: percentile %v: want 0 to 100", title, c.Name, pt.Percentile)
			}
			if err := checkPositive(c.Name, "latency at "+formatPercent(pt.Percentile), pt.ValueUS, " µs"); err != nil {
				return nil, fmt.Errorf("spectrum %q: %w", title, err)
			}
			lo, hi = math.Min(lo, pt.ValueUS), math.Max(hi, pt.ValueUS)
			if pt.Percentile < 100 {
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("spectrum %q: series %q: no point below 100%%: want at least one", title, c.Name)
		}
	}
	if err := checkNames(names); err != nil {
		return nil, fmt.Errorf("spectrum %q: %w", title, err)
	}
	p := newPlot("percentile")
	ch := newChart(title, p, "latency (µs)", caption)
	p.X.Scale = plot.LogScale{}
	xRoom := roomFor(&p.X, false)
	p.X.Tick.Marker = thinTicker{inner: percentileTicks{}, room: xRoom}
	var marks caveatMarks
	for i, c := range curves {
		pts := slices.Clone(c.Points)
		slices.SortFunc(pts, func(a, b SpectrumPoint) int { return cmpFloat(a.Percentile, b.Percentile) })
		var xy plotter.XYs
		label := c.Name
		for _, pt := range pts {
			if pt.Percentile == 100 {
				label = fmt.Sprintf("%s (max %s µs)", c.Name, display.Significant(pt.ValueUS, 4))
				continue
			}
			xy = append(xy, plotter.XY{X: 1 / (1 - pt.Percentile/100), Y: pt.ValueUS})
		}
		st := styleFor(i, c.Family, 1.8)
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, fmt.Errorf("spectrum %q: series %q: %w", title, c.Name, err)
		}
		l.LineStyle = st.line
		sc, err := plotter.NewScatter(sparse(xy, 15))
		if err != nil {
			return nil, fmt.Errorf("spectrum %q: series %q: %w", title, c.Name, err)
		}
		sc.GlyphStyle = st.glyph
		p.Add(l, sc)
		ch.legend = append(ch.legend, legendEntry{label, seriesThumbs(st)})
		for _, m := range sc.XYs {
			marks.put(m.X, m.Y, false, c.Unclean)
		}
	}
	ch.legend = append(ch.legend, caveatLegend(marks.add(p))...)
	p.X.Min = math.Min(p.X.Min, 1)
	var yRoom *axisRoom
	if hi/lo > 10 {
		yRoom = logYAxis(p)
	} else {
		yRoom = linearYAxis(p, false)
	}
	ch.fit = fitRooms(xRoom, yRoom)
	return ch, nil
}

// sparse returns about n of xy's points, evenly spread, for markers that
// identify a dense line without hiding it.
func sparse(xy plotter.XYs, n int) plotter.XYs {
	if len(xy) <= n {
		return xy
	}
	step := (len(xy) + n - 1) / n
	var out plotter.XYs
	for i := 0; i < len(xy); i += step {
		out = append(out, xy[i])
	}
	return out
}

// percentileTicks marks the 1/(1-p) axis at 0%, 50% and every "nine":
// 90%, 99%, 99.9%, ...; unlabelled minor ticks at 2..9 times those.
type percentileTicks struct{}

// Ticks implements plot.Ticker.
func (percentileTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0 && max >= min && !math.IsInf(max, 1)) {
		return nil
	}
	ts := []plot.Tick{{Value: 1, Label: "0%"}, {Value: 2, Label: "50%"}}
	for k := 1; math.Pow10(k) <= max*10 && k <= 12; k++ {
		x := math.Pow10(k)
		ts = append(ts, plot.Tick{Value: x, Label: formatPercent(100 - 100/x)})
		for m := 2; m <= 9; m++ {
			ts = append(ts, plot.Tick{Value: float64(m) * x / 10})
		}
	}
	var in []plot.Tick
	for _, t := range ts {
		if t.Value >= min*(1-1e-9) && t.Value <= max*(1+1e-9) && !(t.Value == 2 && t.Label == "") {
			in = append(in, t)
		}
	}
	return in
}

// formatPercent writes a percentile with as many decimals as it needs, at
// most six: 50%, 99.9%, 99.999%.
func formatPercent(p float64) string {
	return strconv.FormatFloat(math.Round(p*1e6)/1e6, 'f', -1, 64) + "%"
}
