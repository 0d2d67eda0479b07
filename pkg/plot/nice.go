package plot

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// niceTicker marks a linear axis at multiples of 1, 2 or 5 times a power
// of ten, about one label per spacing of axis length (six labels before
// the layout is known), with unlabelled minor ticks between them; labels
// that would still overlap are left out.
type niceTicker struct {
	room    *axisRoom
	spacing vg.Length
}

// Ticks implements plot.Ticker.
func (n niceTicker) Ticks(min, max float64) []plot.Tick {
	target := 6.0
	if n.room != nil && n.room.length > 0 && n.spacing > 0 {
		target = math.Max(2, float64(n.room.length/n.spacing))
	}
	ts := niceTicks(min, max, target)
	if n.room == nil {
		return ts
	}
	return n.room.thin(min, max, ts)
}

// niceTicks returns about target labelled ticks over [min, max], at most
// about twice as many.
func niceTicks(min, max, target float64) []plot.Tick {
	if !(max > min) || math.IsInf(min, 0) || math.IsInf(max, 0) {
		return nil
	}
	raw := (max - min) / target
	mag := math.Pow10(int(math.Floor(math.Log10(raw))))
	// The step whose label count comes closest to target.
	mant, minors, best := 1.0, 5.0, math.Inf(1)
	for _, m := range []struct{ step, minors float64 }{{1, 5}, {2, 4}, {5, 5}, {10, 5}} {
		if d := math.Abs(math.Log(raw / (m.step * mag))); d < best {
			mant, minors, best = m.step, m.minors, d
		}
	}
	step := mant * mag
	decimals := max0(-int(math.Floor(math.Log10(step) + 1e-9)))
	minor := step / minors
	var ts []plot.Tick
	for k := math.Ceil(min / minor); k*minor <= max*(1+1e-12)+1e-12; k++ {
		v := k * minor
		t := plot.Tick{Value: v}
		if q := v / step; math.Abs(q-math.Round(q)) < 1e-6 {
			v = math.Round(q) * step
			if math.Abs(v) < step*1e-9 {
				v = 0
			}
			t = plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)}
		}
		ts = append(ts, t)
	}
	return ts
}

func max0(a int) int {
	if a < 0 {
		return 0
	}
	return a
}
