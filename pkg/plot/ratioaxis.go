package plot

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// logRatio maps a change in per cent to the comparison chart's x: the
// log of the ratio new/base. A rise and the drop that undoes it (+100%
// and -50%, x2 and /2) lie equally far from 0, and a +15000% interval on
// one row leaves room for a +433% and a -71% on the others, which a
// linear axis squashes against zero.
func logRatio(pct float64) float64 { return math.Log1p(pct / 100) }

// ratioTicker labels a log-ratio axis in signed per cents: where the axis
// spans less than a ratio of 4, at nice per cents (-4%, 0%, +4%, +8%),
// nearly evenly spaced there; wider, at the ratios 1, 2 and 5 times a
// power of ten and their inverses (-90%, -50%, 0%, +100%, +400%, +900%).
// Labels that would overlap are left out.
type ratioTicker struct{ room *axisRoom }

// Ticks implements plot.Ticker.
func (t ratioTicker) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	if max-min < math.Log(4) {
		target := 6.0
		if t.room != nil && t.room.length > 0 {
			target = math.Max(2, float64(t.room.length/70))
		}
		for _, tk := range niceTicks(math.Expm1(min)*100, math.Expm1(max)*100, target) {
			if tk.Label != "" {
				tk.Label = pctLabel(tk.Value)
			}
			tk.Value = logRatio(tk.Value)
			ts = append(ts, tk)
		}
	} else {
		for k := -6; k <= 6; k++ {
			for _, m := range []float64{1, 2, 5} {
				r := m * math.Pow10(k)
				if v := math.Log(r); v >= min && v <= max {
					ts = append(ts, plot.Tick{Value: v, Label: pctLabel((r - 1) * 100)})
				}
			}
		}
	}
	if t.room == nil {
		return ts
	}
	return t.room.thin(min, max, ts)
}

// pctLabel writes a change as a tick label: "-50%", "0%", "+2.5%".
func pctLabel(v float64) string {
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64) // drop rounding noise
	s := strconv.FormatFloat(v, 'f', -1, 64) + "%"
	if v > 0 {
		s = "+" + s
	}
	if v == 0 {
		s = "0%"
	}
	return s
}
