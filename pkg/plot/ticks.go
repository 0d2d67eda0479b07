package plot

import (
	"math"
	"slices"
	"strconv"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// axisRoom tells a ticker how much room its axis has, so it can leave out
// labels that would overlap. A zero length means "not laid out yet".
type axisRoom struct {
	length   vg.Length
	vertical bool
	style    text.Style
	scale    plot.Normalizer
}

// labelGap is the least space between two neighbouring tick labels.
const labelGap = vg.Length(6)

// extent is how much of the axis a label covers.
func (r *axisRoom) extent(label string) vg.Length {
	if r.vertical {
		return r.style.Height(label)
	}
	return r.style.Width(label)
}

// pos is where v lies along the axis.
func (r *axisRoom) pos(min, max, v float64) vg.Length {
	return vg.Length(r.scale.Normalize(min, max, v)) * r.length
}

// fits says whether the labelled ticks, in increasing order, keep
// labelGap apart.
func (r *axisRoom) fits(min, max float64, ts []plot.Tick) bool {
	if r.length == 0 {
		return true
	}
	end := vg.Length(math.Inf(-1))
	for _, t := range ts {
		if t.Label == "" {
			continue
		}
		p, half := r.pos(min, max, t.Value), r.extent(t.Label)/2
		if p-half < end+labelGap {
			return false
		}
		end = p + half
	}
	return true
}

// thinTicks turns into unlabelled (minor) ticks every label that would
// overlap the one kept before it.
func (r *axisRoom) thin(min, max float64, ts []plot.Tick) []plot.Tick {
	slices.SortFunc(ts, func(a, b plot.Tick) int { return cmpFloat(a.Value, b.Value) })
	if r.length == 0 {
		return ts
	}
	end := vg.Length(math.Inf(-1))
	for i, t := range ts {
		if t.Label == "" || t.Value < min || t.Value > max {
			continue
		}
		p, half := r.pos(min, max, t.Value), r.extent(t.Label)/2
		if p-half < end+labelGap {
			ts[i].Label = ""
			continue
		}
		end = p + half
	}
	return ts
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// thinTicker wraps a ticker so that its labels never overlap.
type thinTicker struct {
	inner plot.Ticker
	room  *axisRoom
}

// Ticks implements plot.Ticker.
func (t thinTicker) Ticks(min, max float64) []plot.Tick {
	return t.room.thin(min, max, t.inner.Ticks(min, max))
}

// sizeTicker marks a byte-size axis (log scale) at powers of two. When a
// chart has few sizes (a suite's 2, 64, 4K, 64K, 1M) it labels exactly
// those; otherwise it labels every k-th power of two, k the smallest of
// 1, 2, 4, 5, 10 whose labels do not overlap (steps that keep 4K, 64K and
// 1M among the labels where they can).
type sizeTicker struct {
	sizes []int // the data's sizes, sorted, distinct
	room  *axisRoom
}

// Ticks implements plot.Ticker.
func (s sizeTicker) Ticks(min, max float64) []plot.Tick {
	if !(min > 0 && max >= min && !math.IsInf(max, 1)) {
		return nil
	}
	lo, hi := int(math.Floor(math.Log2(min))), int(math.Ceil(math.Log2(max)))
	inRange := func(v float64) bool { return v >= min*(1-1e-9) && v <= max*(1+1e-9) }
	if len(s.sizes) <= 8 {
		var ts []plot.Tick
		labelled := map[float64]bool{}
		for _, n := range s.sizes {
			ts = append(ts, plot.Tick{Value: float64(n), Label: display.SizeTick(n)})
			labelled[float64(n)] = true
		}
		for e := lo; e <= hi; e++ {
			if v := math.Ldexp(1, e); inRange(v) && !labelled[v] {
				ts = append(ts, plot.Tick{Value: v})
			}
		}
		slices.SortFunc(ts, func(a, b plot.Tick) int { return cmpFloat(a.Value, b.Value) })
		if s.room.fits(min, max, ts) {
			return ts
		}
	}
	var ts []plot.Tick
	for _, step := range []int{1, 2, 4, 5, 10} {
		ts = ts[:0]
		for e := lo; e <= hi; e++ {
			v := math.Ldexp(1, e)
			if !inRange(v) {
				continue
			}
			t := plot.Tick{Value: v}
			if e%step == 0 {
				t.Label = display.SizeTick(int(v))
			}
			ts = append(ts, t)
		}
		if s.room.fits(min, max, ts) {
			return ts
		}
	}
	return s.room.thin(min, max, ts)
}

// logTicker marks a log-scale value axis: at every power of ten when the
// range spans 3 decades or more, at 1, 2 and 5 times powers of ten over
// a shorter range, at every multiple of a power of ten within one decade;
// labels that would overlap are left out.
type logTicker struct{ room *axisRoom }

// Ticks implements plot.Ticker.
func (l logTicker) Ticks(vmin, vmax float64) []plot.Tick {
	if !(vmin > 0 && vmax >= vmin && !math.IsInf(vmax, 1)) {
		return nil
	}
	decades := math.Log10(vmax / vmin)
	lo, hi := int(math.Floor(math.Log10(vmin))), int(math.Ceil(math.Log10(vmax)))
	var ts []plot.Tick
	for e := lo; e <= hi; e++ {
		p := math.Pow10(e)
		for m := 1; m <= 9; m++ {
			v := float64(m) * p
			if v < vmin*(1-1e-9) || v > vmax*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			switch {
			case m == 1, decades < 1, decades < 3 && (m == 2 || m == 5):
				t.Label = strconv.FormatFloat(v, 'f', max(0, -e), 64)
			}
			if decades > 5 && m != 1 {
				continue
			}
			ts = append(ts, t)
		}
	}
	return l.room.thin(vmin, vmax, ts)
}

// widenLog widens [min, max] to span at least a factor of three around its
// geometric centre, so a log axis always shows two labels.
func widenLog(min, max float64) (float64, float64) {
	if max/min >= 3 {
		return min, max
	}
	c := math.Sqrt(min * max)
	return c / math.Sqrt(3), c * math.Sqrt(3)
}
