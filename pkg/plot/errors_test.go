package plot

import (
	"math"
	"strings"
	"testing"
)

// Bad input gives an error that says what was wrong, never a panic.
func TestBadInputErrors(t *testing.T) {
	nan := math.NaN()
	lat := func(pts ...LatencyPoint) []LatencySeries {
		return []LatencySeries{{Name: "write_lat", Family: RDMA, Points: pts}}
	}
	th := math.Inf(1)
	cases := []struct {
		name string
		run  func() (*Chart, error)
		want string
	}{
		{"no series", func() (*Chart, error) { return LatencyVsSize("t", nil, Caption{}) }, "no series"},
		{"no points", func() (*Chart, error) { return LatencyVsSize("t", lat(), Caption{}) }, "no points"},
		{"zero size", func() (*Chart, error) { return LatencyVsSize("t", lat(LatencyPoint{0, 1, 2, 3, Caveat{}}), Caption{}) }, "size 0 bytes"},
		{"zero p50", func() (*Chart, error) { return LatencyVsSize("t", lat(LatencyPoint{64, 0, 2, 3, Caveat{}}), Caption{}) }, "p50 latency at 64 B: 0 µs: want a positive"},
		{"NaN p50", func() (*Chart, error) {
			return LatencyVsSize("t", lat(LatencyPoint{64, nan, 2, 3, Caveat{}}), Caption{})
		}, "positive finite"},
		{"bad family", func() (*Chart, error) {
			return LatencyVsSize("t", []LatencySeries{{Name: "x", Family: "UDP", Points: []LatencyPoint{{64, 1, 2, 3, Caveat{}}}}}, Caption{})
		}, `family "UDP"`},
		{"same name twice", func() (*Chart, error) {
			s := lat(LatencyPoint{64, 1, 2, 3, Caveat{}})
			return LatencyVsSize("t", append(s, s...), Caption{})
		}, "name used twice"},
		{"unknown rate metric", func() (*Chart, error) {
			return RateVsSize("t", "goodput", rateSeries(suiteSizes, Bandwidth), Caption{})
		}, `metric "goodput"`},
		{"infinite bandwidth", func() (*Chart, error) {
			return RateVsSize("t", Bandwidth, []SizeSeries{{Name: "bw", Points: []SizeValue{{64, math.Inf(1), Caveat{}}}}}, Caption{})
		}, "finite"},
		{"zero message rate", func() (*Chart, error) {
			return RateVsSize("t", MessageRate, []SizeSeries{{Name: "bw", Points: []SizeValue{{64, 0, Caveat{}}}}}, Caption{})
		}, "logarithmic"},
		{"negative CPU", func() (*Chart, error) {
			return CPUPerGBVsSize("t", []SizeSeries{{Name: "bw", Points: []SizeValue{{64, -1, Caveat{}}}}}, Caption{})
		}, "positive"},
		{"percentile over 100", func() (*Chart, error) {
			return Spectrum("t", []SpectrumCurve{{Name: "s", Points: []SpectrumPoint{{101, 5}}}}, Caption{})
		}, "want 0 to 100"},
		{"spectrum of max only", func() (*Chart, error) {
			return Spectrum("t", []SpectrumCurve{{Name: "s", Points: []SpectrumPoint{{100, 5}}}}, Caption{})
		}, "no point below 100%"},
		{"no whiskers", func() (*Chart, error) { return ComparisonWhiskers("t", nil, Caption{}) }, "no rows"},
		{"whisker without label", func() (*Chart, error) { return ComparisonWhiskers("t", []Whisker{{DeltaPct: 1}}, Caption{}) }, "empty label"},
		{"inverted interval", func() (*Chart, error) {
			return ComparisonWhiskers("t", []Whisker{{Label: "x", DeltaPct: 1, LoPct: 3, HiPct: 2}}, Caption{})
		}, "low <= high"},
		{"half an interval", func() (*Chart, error) {
			return ComparisonWhiskers("t", []Whisker{{Label: "x", DeltaPct: 1, LoPct: nan, HiPct: 2}}, Caption{})
		}, "both NaN"},
		{"infinite threshold", func() (*Chart, error) {
			return ComparisonWhiskers("t", []Whisker{{Label: "x", DeltaPct: 1, LoPct: 0, HiPct: 2, ThresholdPct: &th}}, Caption{})
		}, "threshold"},
		{"trend without metric", func() (*Chart, error) { l, s := trendSeries(); return Trend("t", "", l, s, Caption{}) }, "empty metric"},
		{"trend too few values", func() (*Chart, error) { l, s := trendSeries(); return Trend("t", "m (µs)", l[:3], s, Caption{}) }, "5 values for 3 labels"},
		{"trend all NaN", func() (*Chart, error) {
			return Trend("t", "m", []string{"a"}, []TrendSeries{{Name: "s", Values: []TrendValue{{nan, nan, nan, false, false}}}}, Caption{})
		}, "every median is NaN"},
		{"matrix ragged", func() (*Chart, error) {
			return Matrix("t", Grid{Rows: []string{"a", "b"}, Cols: []string{"a", "b"}, Values: [][]float64{{1, 2}, {3}}}, Caption{})
		}, "1 values for 2 columns"},
		{"matrix all NaN", func() (*Chart, error) {
			return Matrix("t", Grid{Rows: []string{"a"}, Cols: []string{"b"}, Values: [][]float64{{nan}}}, Caption{})
		}, "no cell has data"},
		{"matrix empty", func() (*Chart, error) { return Matrix("t", Grid{}, Caption{}) }, "0 rows by 0 columns"},
		{"matrix marks ragged", func() (*Chart, error) {
			return Matrix("t", Grid{Rows: []string{"a"}, Cols: []string{"b", "c"}, Values: [][]float64{{1, 2}}, Marks: [][]string{{""}}}, Caption{})
		}, "row 0 of marks: 1 cells for 2 columns"},
		{"matrix outlined rows", func() (*Chart, error) {
			return Matrix("t", Grid{Rows: []string{"a"}, Cols: []string{"b"}, Values: [][]float64{{1}}, Outlined: [][]bool{{true}, {true}}}, Caption{})
		}, "2 rows of outlined cells for 1 rows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch, err := c.run()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got chart %v, error %v; want an error saying %q", ch != nil, err, c.want)
			}
			if msg := err.Error(); strings.ToLower(msg[:1]) != msg[:1] {
				t.Errorf("error %q does not start in lower case", msg)
			}
		})
	}
}

// Edge cases that are valid draw without error: one point, equal values,
// a constant matrix, a NaN tail, a whisker with no interval.
func TestEdgeCasesDraw(t *testing.T) {
	nan := math.NaN()
	var charts []*Chart
	add := func(ch *Chart, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		charts = append(charts, ch)
	}
	add(LatencyVsSize("one point", []LatencySeries{{Name: "w", Family: RDMA, Points: []LatencyPoint{{64, 3, nan, nan, Caveat{}}}}}, Caption{}))
	add(RateVsSize("flat", Bandwidth, []SizeSeries{{Name: "w", Points: []SizeValue{{64, 0, Caveat{}}, {128, 0, Caveat{}}}}}, Caption{}))
	add(RateVsSize("flat log", MessageRate, []SizeSeries{{Name: "w", Points: []SizeValue{{64, 2, Caveat{}}, {128, 2, Caveat{}}}}}, Caption{}))
	add(Spectrum("one", []SpectrumCurve{{Name: "s", Points: []SpectrumPoint{{50, 3}}}}, Caption{}))
	add(ComparisonWhiskers("bare", []Whisker{{Label: "x", DeltaPct: 0, LoPct: nan, HiPct: nan}}, Caption{}))
	add(Trend("gap", "m (µs)", []string{"a", "b", "c"}, []TrendSeries{{Name: "s", Values: []TrendValue{{1, nan, nan, false, false}, {nan, nan, nan, false, false}, {2, 1.5, 2.5, false, false}}}}, Caption{}))
	add(Matrix("constant", Grid{Rows: []string{"a"}, Cols: []string{"b", "c"}, Values: [][]float64{{5, 5}}}, Caption{}))
	for _, ch := range charts {
		if _, err := ch.svgBytes(); err != nil {
			t.Errorf("%s: %v", ch.Title(), err)
		}
		if _, err := ch.pngBytes(); err != nil {
			t.Errorf("%s: %v", ch.Title(), err)
		}
	}
}
