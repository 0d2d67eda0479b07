package plot

import (
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
)

// FormatRate writes an operation rate the way the charts label it, with
// SI prefixes: 500, 2k, 2.5k, 20k, 1M.
func FormatRate(v float64) string {
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64) // 999999 is 1M, not 1e+03k
	for _, u := range []struct {
		s string
		f float64
	}{{"G", 1e9}, {"M", 1e6}, {"k", 1e3}} {
		if math.Abs(v) >= u.f {
			return strconv.FormatFloat(v/u.f, 'g', 3, 64) + u.s
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// rateAxis makes p's x axis a log rate axis over rates, padded a little at
// both ends so that the first and last markers and a knee at the highest
// rate stand clear of the frame.
func rateAxis(p *plot.Plot, rates []float64) *axisRoom {
	p.X.Scale = plot.LogScale{}
	s := slices.Clone(rates)
	slices.Sort(s)
	s = slices.Compact(s)
	lo, hi := widenLog(s[0], s[len(s)-1])
	pad := math.Pow(hi/lo, 0.05)
	p.X.Min, p.X.Max = lo/pad, hi*pad
	r := roomFor(&p.X, false)
	p.X.Tick.Marker = rateTicker{rates: s, room: r}
	return r
}

// rateTicker marks a log rate axis: at exactly the data's rates when they
// are few (an offered-load sweep's 2k, 5k, 10k, 20k) and their labels fit;
// otherwise at 1, 2 and 5 times powers of ten, thinned to fit.
type rateTicker struct {
	rates []float64 // the data's rates, sorted, distinct
	room  *axisRoom
}

// Ticks implements plot.Ticker.
func (t rateTicker) Ticks(min, max float64) []plot.Tick {
	if !(min > 0 && max >= min && !math.IsInf(max, 1)) {
		return nil
	}
	var ts []plot.Tick
	if len(t.rates) <= 8 {
		for _, v := range t.rates {
			if v >= min && v <= max {
				ts = append(ts, plot.Tick{Value: v, Label: FormatRate(v)})
			}
		}
		if t.room.fits(min, max, ts) {
			return ts
		}
	}
	ts = logTicker{room: &axisRoom{}}.Ticks(min, max) // unthinned: a zero room
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = FormatRate(ts[i].Value)
		}
	}
	return t.room.thin(min, max, ts)
}
