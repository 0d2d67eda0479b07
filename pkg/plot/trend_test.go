package plot

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/plot"
)

// Series a hundred times apart share a log axis: labelled by decades,
// the small series' change visible as the large one's.
func TestTrendFarApartIsLog(t *testing.T) {
	mk := func(name string, v ...float64) TrendSeries {
		s := TrendSeries{Name: name, Family: RDMA}
		for _, x := range v {
			s.Values = append(s.Values, TrendValue{x, math.NaN(), math.NaN(), false, false})
		}
		return s
	}
	ch, err := Trend("Trend", "p50 latency (µs)", []string{"base", "new"},
		[]TrendSeries{mk("RC poll 64 B", 10.9, 11.3), mk("RC poll 64 KiB", 1006, 1465)}, testCaption)
	texts := chartTexts(t, ch, err)
	got := textSet(texts)
	for _, w := range []string{"10", "100", "1000"} {
		if got[w] == 0 {
			t.Errorf("no tick %q: want a log axis by decades; texts %v", w, got)
		}
	}
	if _, ok := ch.plot.Y.Scale.(plot.LogScale); !ok {
		t.Errorf("y scale %T, want a log scale", ch.plot.Y.Scale)
	}
	checkNoOverlap(t, "trend far apart", texts)
}

// No two of the first 24 series share both colour and mark shape.
func TestSeriesStylesDistinct(t *testing.T) {
	seen := map[string]int{}
	for i := range 24 {
		st := styleFor(i, RDMA, 2)
		k := fmt.Sprintf("%v %T", st.line.Color, st.glyph.Shape)
		if j, ok := seen[k]; ok {
			t.Errorf("series %d and %d are both %s", j+1, i+1, k)
		}
		seen[k] = i
	}
}
