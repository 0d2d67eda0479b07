package plot

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/plot"
)

func TestFormatPercent(t *testing.T) {
	for p, want := range map[float64]string{0: "0%", 50: "50%", 90: "90%", 99.9: "99.9%", 99.999: "99.999%", 100 - 100.0/1e4: "99.99%"} {
		if got := formatPercent(p); got != want {
			t.Errorf("formatPercent(%v) = %q, want %q", p, got, want)
		}
	}
}

func labels(ts []plot.Tick) []string {
	var l []string
	for _, t := range ts {
		if t.Label != "" {
			l = append(l, t.Label)
		}
	}
	return l
}

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		min, max, target float64
		want             []string
	}{
		{0, 40, 8, []string{"0", "5", "10", "15", "20", "25", "30", "35", "40"}},
		{0, 40, 4, []string{"0", "10", "20", "30", "40"}},
		{1.9, 13.1, 6, []string{"2", "4", "6", "8", "10", "12"}},
		{-12, 10, 5, []string{"-10", "-5", "0", "5", "10"}},
		{0.31, 0.79, 5, []string{"0.4", "0.5", "0.6", "0.7"}},
	} {
		if got := labels(niceTicks(c.min, c.max, c.target)); !slices.Equal(got, c.want) {
			t.Errorf("niceTicks(%v, %v, %v) = %v, want %v", c.min, c.max, c.target, got, c.want)
		}
	}
	if ts := niceTicks(1, 1, 5); ts != nil {
		t.Errorf("an empty range gave ticks %v", ts)
	}
}

// A sweep of 2 B .. 8 MiB on a 600 pt axis labels every second power of
// two from 4 (so 64, 4K, 64K and 1M are among them); the five sizes of a
// suite are labelled as they are; on a cramped axis the step grows.
func TestSizeTicks(t *testing.T) {
	axis := plot.New().X
	axis.Tick.Label.Font = sans(10, false)
	axis.Scale = plot.LogScale{}
	room := roomFor(&axis, false)
	sweep := sizesFrom(2, 8<<20)
	room.length = 600
	got := labels(sizeTicker{sizes: sweep, room: room}.Ticks(2, 8<<20))
	want := []string{"4", "16", "64", "256", "1K", "4K", "16K", "64K", "256K", "1M", "4M"}
	if !slices.Equal(got, want) {
		t.Errorf("sweep labels %v, want %v", got, want)
	}
	got = labels(sizeTicker{sizes: suiteSizes, room: room}.Ticks(2, 1<<20))
	if want := []string{"2", "64", "4K", "64K", "1M"}; !slices.Equal(got, want) {
		t.Errorf("suite labels %v, want %v", got, want)
	}
	room.length = 200
	got = labels(sizeTicker{sizes: sweep, room: room}.Ticks(2, 8<<20))
	if want := []string{"16", "256", "4K", "64K", "1M"}; !slices.Equal(got, want) {
		t.Errorf("cramped sweep labels %v, want %v", got, want)
	}
	if !room.fits(2, 8<<20, sizeTicker{sizes: sweep, room: room}.Ticks(2, 8<<20)) {
		t.Error("cramped labels overlap")
	}
}

func TestLogTicks(t *testing.T) {
	axis := plot.New().Y
	axis.Scale = plot.LogScale{}
	room := roomFor(&axis, true) // length 0: no thinning
	for _, c := range []struct {
		min, max float64
		want     []string
	}{
		{3, 4000, []string{"10", "100", "1000"}},
		{0.04, 2000, []string{"0.1", "1", "10", "100", "1000"}},
		{3, 90, []string{"5", "10", "20", "50"}},
		{0.002, 0.9, []string{"0.002", "0.005", "0.01", "0.02", "0.05", "0.1", "0.2", "0.5"}},
		{4.1, 8.9, []string{"5", "6", "7", "8"}},
	} {
		if got := labels(logTicker{room: room}.Ticks(c.min, c.max)); !slices.Equal(got, c.want) {
			t.Errorf("log ticks over [%v, %v] = %v, want %v", c.min, c.max, got, c.want)
		}
	}
	lo, hi := widenLog(5.1, 5.9)
	if r := hi / lo; math.Abs(r-3) > 1e-9 || math.Abs(lo*hi-5.1*5.9) > 1e-9 {
		t.Errorf("widenLog(5.1, 5.9) = %v, %v: want a factor of 3 around the same centre", lo, hi)
	}
}

func TestPercentileTicks(t *testing.T) {
	got := labels(percentileTicks{}.Ticks(1, 1e5))
	if want := []string{"0%", "50%", "90%", "99%", "99.9%", "99.99%", "99.999%"}; !slices.Equal(got, want) {
		t.Errorf("percentile labels %v, want %v", got, want)
	}
}

func TestFormatRate(t *testing.T) {
	for v, want := range map[float64]string{1: "1", 500: "500", 999: "999", 1000: "1k", 2500: "2.5k", 20000: "20k",
		999999: "1M", 1e6: "1M", 1.5e6: "1.5M", 2e9: "2G", 0.5: "0.5"} {
		if got := FormatRate(v); got != want {
			t.Errorf("FormatRate(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestNiceLogBounds(t *testing.T) {
	for _, c := range []struct{ lo, hi, wantLo, wantHi float64 }{
		{12, 130000, 10, 200000}, {4.51, 96, 2, 100}, {1, 10, 1, 10}, {0.031, 0.049, 0.02, 0.05}, {6, 7, 5, 10},
	} {
		lo, hi := niceLogBounds(c.lo, c.hi)
		if math.Abs(lo/c.wantLo-1) > 1e-9 || math.Abs(hi/c.wantHi-1) > 1e-9 {
			t.Errorf("niceLogBounds(%v, %v) = %v, %v; want %v, %v", c.lo, c.hi, lo, hi, c.wantLo, c.wantHi)
		}
	}
}

func TestRateTicks(t *testing.T) {
	axis := plot.New().X
	axis.Tick.Label.Font = sans(10, false)
	axis.Scale = plot.LogScale{}
	room := roomFor(&axis, false)
	room.length = 600
	// Few rates: each labelled.
	if got := labels(rateTicker{rates: loadRates, room: room}.Ticks(900, 55000)); !slices.Equal(got, []string{"1k", "2k", "5k", "10k", "20k", "50k"}) {
		t.Errorf("six rates: labels %v", got)
	}
	// Many: powers of ten.
	if got := labels(rateTicker{rates: manyRates, room: room}.Ticks(900, 1.1e6)); !slices.Equal(got, []string{"1k", "10k", "100k", "1M"}) {
		t.Errorf("ten rates: labels %v", got)
	}
}
