package plot

import (
	"math"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// caveatMarksIn counts a chart's caveat marks in its SVG, the legend's
// samples among them: hollow (a white disc of the hollow glyph's radius
// in a black ring; a disc without its ring is an error) and crossed (two
// bold black strokes each), and returns its texts.
func caveatMarksIn(t *testing.T, ch *Chart, err error) (hollow, crossed int, texts map[string]int) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	b, err := ch.svgBytes()
	if err != nil {
		t.Fatal(err)
	}
	strokes, rings := 0, 0
	walkSVG(t, b, svgVisitor{start: func(name string, attr map[string]string, _ affine) {
		if name != "path" {
			return
		}
		switch {
		case attr["style"] == "fill:#FFFFFF" && strings.Contains(attr["d"], "A1.8,1.8"):
			hollow++
		case attr["style"] == "fill:none;stroke:#000000;stroke-width:1.4":
			strokes++
		case attr["style"] == "fill:none;stroke:#000000" && strings.Contains(attr["d"], "A5.5,5.5"):
			rings++
		}
	}})
	if rings != hollow {
		t.Errorf("%d hollow marks, %d rings around them: want one each", hollow, rings)
	}
	ts, _ := parseSVG(t, b)
	return hollow, strokes / 2, textSet(ts)
}

// Every chart draws a thin percentile hollow and an unclean point crossed,
// with a legend entry in the tables' words for each caveat drawn, and
// none of either for clean points with enough samples.
func TestCaveatMarks(t *testing.T) {
	nan := math.NaN()
	// 15 samples: p50 resolved, p99 and p99.9 thin (display.MinSamples).
	thin, unclean, both := Caveat{Samples: 15}, Caveat{Samples: 100000, Unclean: true}, Caveat{Samples: 15, Unclean: true}
	ok := Caveat{Samples: 100000}
	th := 5.0
	for _, c := range []struct {
		name           string
		clean, caveats func() (*Chart, error)
		hollow, cross  int // marks on the data, with caveats
	}{
		{"latency vs size",
			func() (*Chart, error) {
				return LatencyVsSize("t", []LatencySeries{{Name: "w", Points: []LatencyPoint{{64, 2, 3, 4, ok}, {128, 2, 3, 4, ok}}}}, Caption{})
			},
			func() (*Chart, error) {
				// 64 B thin (p99, p99.9 hollow), 128 B unclean (all three crossed).
				return LatencyVsSize("t", []LatencySeries{{Name: "w", Points: []LatencyPoint{{64, 2, 3, 4, thin}, {128, 2, 3, nan, unclean}}}}, Caption{})
			}, 2, 2},
		{"latency vs load",
			func() (*Chart, error) {
				return LatencyVsLoad("t", []LoadCurve{{Name: "w", ClosedP50US: nan, Points: []LoadPoint{{1000, 2, 3, 4, ok}}}}, Caption{})
			},
			func() (*Chart, error) {
				return LatencyVsLoad("t", []LoadCurve{{Name: "w", ClosedP50US: nan, Points: []LoadPoint{{1000, 2, 3, 4, both}, {2000, 2, 3, 4, ok}}}}, Caption{})
			}, 2, 3},
		{"bandwidth vs size",
			func() (*Chart, error) {
				return RateVsSize("t", Bandwidth, []SizeSeries{{Name: "w", Points: []SizeValue{{64, 1, ok}}}}, Caption{})
			},
			func() (*Chart, error) {
				// A rate is no percentile: few samples do not thin it.
				return RateVsSize("t", Bandwidth, []SizeSeries{{Name: "w", Points: []SizeValue{{64, 1, both}, {128, 2, ok}}}}, Caption{})
			}, 0, 1},
		{"trend",
			func() (*Chart, error) {
				return Trend("t", "m (µs)", []string{"a", "b"}, []TrendSeries{{Name: "s", Values: []TrendValue{{1, nan, nan, false, false}, {2, nan, nan, false, false}}}}, Caption{})
			},
			func() (*Chart, error) {
				return Trend("t", "m (µs)", []string{"a", "b"}, []TrendSeries{{Name: "s", Values: []TrendValue{{1, nan, nan, true, false}, {2, nan, nan, true, true}}}}, Caption{})
			}, 2, 1},
		{"comparison",
			func() (*Chart, error) {
				return ComparisonWhiskers("t", []Whisker{{Label: "a", DeltaPct: 1, LoPct: 0, HiPct: 2, ThresholdPct: &th}}, Caption{})
			},
			func() (*Chart, error) {
				return ComparisonWhiskers("t", []Whisker{{Label: "a", DeltaPct: 1, LoPct: 0, HiPct: 2, ThresholdPct: &th, Unclean: true},
					{Label: "b", DeltaPct: 1, LoPct: 0, HiPct: 2, ThresholdPct: &th, Thin: true}}, Caption{})
			}, 1, 1},
		{"spectrum",
			func() (*Chart, error) {
				return Spectrum("t", []SpectrumCurve{{Name: "w", Points: []SpectrumPoint{{50, 2}, {99, 3}}}}, Caption{})
			},
			func() (*Chart, error) {
				// Every mark of the unclean curve crossed; no spectrum point is thin.
				return Spectrum("t", []SpectrumCurve{{Name: "w", Points: []SpectrumPoint{{50, 2}, {99, 3}}, Unclean: true},
					{Name: "v", Points: []SpectrumPoint{{50, 2}, {99, 3}}}}, Caption{})
			}, 0, 2},
	} {
		ch, err := c.clean()
		h, x, texts := caveatMarksIn(t, ch, err)
		if h != 0 || x != 0 || texts[display.ThinLegend] != 0 || texts[display.UncleanLegend] != 0 {
			t.Errorf("%s, clean: %d hollow, %d crossed, legend %v: want no caveat", c.name, h, x, texts)
		}
		ch, err = c.caveats()
		h, x, texts = caveatMarksIn(t, ch, err)
		// The legend's samples are one more of each caveat drawn.
		if h != c.hollow+min(c.hollow, 1) || x != c.cross+1 {
			t.Errorf("%s: %d hollow, %d crossed marks with the legend's, want %d and %d and the legend's", c.name, h, x, c.hollow, c.cross)
		}
		for _, w := range []string{display.ThinLegend, display.UncleanLegend} {
			if w == display.ThinLegend && c.hollow == 0 {
				if texts[w] != 0 {
					t.Errorf("%s: legend %q with no thin point drawn", c.name, w)
				}
				continue
			}
			if texts[w] != 1 {
				t.Errorf("%s: legend has %q %d times, want once; texts %v", c.name, w, texts[w], texts)
			}
		}
	}
}
