package plot

import (
	"fmt"
	"math"
	"strings"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// manyLabels are n labels like a nightly directory's: r0000, r0001, ...
func manyLabels(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("r%04d", i)
	}
	return out
}

// manyCaption names every label in one caption item, as a caption of n
// documents of distinct labels did before the caption was bounded.
func manyCaption(labels []string) Caption {
	c := testCaption
	c.Extra = [][2]string{{"label", strings.Join(labels, ", ")}, {"kernel", "6.1.0-56-amd64"}}
	return c
}

// TestManyLabelsKeepTheirRoom: a chart of 900 labels (the
// trend's categories, the spectrum's and latency chart's series) with a
// caption naming them all is drawn, SVG and PNG, in bounded time, with
// its data area inside the chart and as tall as a trend of 300 labels',
// a legend and caption cut to the room, and no two texts overlapping.
// Before, the caption took a line per 25 labels and, past about 850, the
// whole chart: the trend's data area went to +-Inf and the PNG rasterizer
// never returned (rdma-bench plot over 900 labelled documents ran until
// killed).
func TestManyLabelsKeepTheirRoom(t *testing.T) {
	small, err := Trend("Trend", "p50 latency (µs)", manyLabels(300), flatTrend(300), manyCaption(manyLabels(300)))
	if err != nil {
		t.Fatal(err)
	}
	chartTexts(t, small, nil)
	wantH := small.laidOut.data.Size().Y
	// 900 is where rdma-bench plot never ended; the command's scale test
	// draws 5,000 (cmd/rdma-bench, TestScaleLabelledDirectories).
	for _, n := range []int{900} {
		labels := manyLabels(n)
		caption := manyCaption(labels)
		var curves []SpectrumCurve
		var lat []LatencySeries
		for i, l := range labels {
			curves = append(curves, spectrum(l, TCP, 5+float64(i%7)/10, 0.2))
			lat = append(lat, LatencySeries{Name: l, Family: TCP, Points: []LatencyPoint{{2, 5, 12, 25, Caveat{}}, {64, 6, 13, 27, Caveat{}}}})
		}
		for _, c := range []struct {
			name  string
			chart func() (*Chart, error)
		}{
			{"trend", func() (*Chart, error) {
				return Trend("tcp_lat: p50 by label", "p50 latency (µs)", labels, flatTrend(n), caption)
			}},
			{"spectrum", func() (*Chart, error) { return Spectrum("tcp_lat 2 B: latency spectrum", curves, caption) }},
			{"latency", func() (*Chart, error) { return LatencyVsSize("latency vs message size", lat, caption) }},
		} {
			t.Run(fmt.Sprintf("%s %d", c.name, n), func(t *testing.T) {
				ch, err := c.chart()
				if err != nil {
					t.Fatal(err)
				}
				start := processCPU(t)
				texts := chartTexts(t, ch, nil)
				if _, err := ch.pngBytes(); err != nil {
					t.Fatal(err)
				}
				// About a second on the project's 2-core machine. The
				// bound is on the process's CPU time, not the wall's
				// (which other work on a shared machine stretches: 37 s
				// once beside two other test runs), and leaves room for
				// -race; a layout that grew with the square of the labels
				// would pass it many times over.
				if d := processCPU(t) - start; d > 60*time.Second {
					t.Errorf("SVG and PNG took %v of CPU, want under 60 s", d)
				}
				w, h := ch.Size()
				data, legend := ch.laidOut.data, ch.laidOut.legend
				if data.Min.X < 0 || data.Min.Y < 0 || data.Max.X.Points() > w || data.Max.Y.Points() > h {
					t.Errorf("data area %+v outside the chart (%g by %g pt)", data, w, h)
				}
				if c.name == "trend" && data.Size().Y < wantH-1 {
					t.Errorf("data area %.0f pt tall, want %.0f as with 300 labels", data.Size().Y.Points(), wantH.Points())
				}
				if legend.Min.Y < 0 || legend.Max.Y.Points() > h {
					t.Errorf("legend %+v outside the chart", legend)
				}
				got := textSet(texts)
				if c.name != "trend" && !moreLine(got) {
					t.Errorf("no \"… N more\" line in the legend of %d series", n)
				}
				if len(texts) > 300 {
					t.Errorf("%d texts in the picture: want a number that does not grow with the labels", len(texts))
				}
				captionLines := 0
				for _, tx := range texts {
					if tx.size == captionSize.Points() {
						captionLines++
					}
				}
				if captionLines == 0 || captionLines > maxCaptionLines {
					t.Errorf("%d caption lines, want 1 to %d", captionLines, maxCaptionLines)
				}
				checkNoOverlap(t, c.name, texts)
				checkUprightTicksApart(t, texts)
			})
		}
	}
}

// moreLine says whether texts hold a legend line "… N more".
func moreLine(texts map[string]int) bool {
	for s := range texts {
		if strings.HasPrefix(s, "… ") && strings.HasSuffix(s, " more") {
			return true
		}
	}
	return false
}

// checkUprightTicksApart fails when two rotated tick labels stand closer
// than a line's height: the trend's category labels are thinned so that
// upright ones do not overlap.
func checkUprightTicksApart(t *testing.T, texts []svgText) {
	t.Helper()
	var xs []float64
	for _, tx := range texts {
		if tx.rotated && strings.HasPrefix(tx.s, "r") {
			xs = append(xs, tx.x)
		}
	}
	for i := 1; i < len(xs); i++ {
		if math.Abs(xs[i]-xs[i-1]) < 10 {
			t.Errorf("upright tick labels at x=%.1f and %.1f overlap", xs[i-1], xs[i])
			return
		}
	}
}

// flatTrend is one series of n values, varying by 1% as nightly ones do.
func flatTrend(n int) []TrendSeries {
	s := TrendSeries{Name: "TCP poll 2 B", Family: TCP}
	for i := range n {
		s.Values = append(s.Values, TrendValue{Median: 5.2 + float64(i%5)/100, Lo: math.NaN(), Hi: math.NaN()})
	}
	return []TrendSeries{s}
}

// TestFitLegend: the entries that fit are drawn; past that the first
// ones, "… N more", the last one and the key (after the last blank
// entry) whole.
func TestFitLegend(t *testing.T) {
	entry := func(s string) legendEntry { return legendEntry{label: s} }
	var series []legendEntry
	for i := range 10 {
		series = append(series, entry(fmt.Sprint(i)))
	}
	key := []legendEntry{{}, entry("p50"), entry("p99")}
	labels := func(es []legendEntry) string {
		var out []string
		for _, e := range es {
			out = append(out, e.label)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		entries []legendEntry
		n       int
		want    string
	}{
		{series, 10, "0,1,2,3,4,5,6,7,8,9"},
		{series, 5, "0,1,2,… 6 more,9"},
		{series, 3, "0,… 8 more,9"},
		{series, 2, "(10 entries: no room to name them)"},
		{append(series[:10:10], key...), 8, "0,1,2,… 6 more,9,,p50,p99"},
		{append(series[:10:10], key...), 13, "0,1,2,3,4,5,6,7,8,9,,p50,p99"},
		// No room for the key beside three series lines: the key goes too.
		{append(series[:10:10], key...), 5, "0,1,2,… 9 more,p99"},
	} {
		if got := labels(fitLegend(c.entries, c.n)); got != c.want {
			t.Errorf("fitLegend(%d entries, %d) = %q, want %q", len(c.entries), c.n, got, c.want)
		}
	}
}

// TestCategoryStep: the least of 1, 2, 5, 10, ... at or above the need,
// never past the number of labels, whatever the need (a degenerate
// layout's infinity included).
func TestCategoryStep(t *testing.T) {
	for _, c := range []struct {
		need float64
		n    int
		want int
	}{{0.3, 100, 1}, {1, 100, 1}, {1.1, 100, 2}, {3, 100, 5}, {7, 100, 10}, {11, 5000, 20}, {120, 5000, 200},
		{math.Inf(1), 900, 900}, {math.NaN(), 900, 900}, {3, 0, 1}} {
		if got := categoryStep(c.need, c.n); got != c.want {
			t.Errorf("categoryStep(%v, %d) = %d, want %d", c.need, c.n, got, c.want)
		}
	}
}

// TestCaptionLinesBounded: however many items, at most maxCaptionLines
// lines, each within the width, the last ending in an ellipsis when
// items were left out.
func TestCaptionLinesBounded(t *testing.T) {
	c := manyCaption(manyLabels(5000))
	width := vg.Length(600)
	lines := c.lines(captionStyle, width)
	if len(lines) != maxCaptionLines || !strings.HasSuffix(lines[len(lines)-1], "…") {
		t.Fatalf("%d lines, last %q: want %d, the last ending in …", len(lines), lines[len(lines)-1], maxCaptionLines)
	}
	for _, l := range lines {
		if w := captionStyle.Width(l); w > width {
			t.Errorf("line %q is %.0f pt wide, want at most %.0f", l, w.Points(), width.Points())
		}
	}
	long := Caption{Host: strings.Repeat("x", 500)}.lines(captionStyle, width)
	if last := long[len(long)-1]; len(long) > 2 || captionStyle.Width(last) > width || !strings.HasSuffix(last, "…") {
		t.Errorf("a word wider than the line: %q, want it cut to the width with an ellipsis", long)
	}
}

// TestRoomForData: a data area smaller than minDataSide either way, or
// not finite, is refused with a reason; the degenerate layout is never
// handed to the rasterizer.
func TestRoomForData(t *testing.T) {
	rect := func(w, h float64) vg.Rectangle {
		return vg.Rectangle{Max: vg.Point{X: vg.Length(w), Y: vg.Length(h)}}
	}
	if err := roomForData(rect(300, 200)); err != nil {
		t.Errorf("300 by 200 pt refused: %v", err)
	}
	for _, r := range []vg.Rectangle{rect(300, 10), rect(10, 300), rect(300, -50),
		{Min: vg.Point{Y: vg.Length(math.Inf(-1))}, Max: vg.Point{X: 300, Y: vg.Length(math.Inf(1))}}, rect(math.NaN(), 200)} {
		if err := roomForData(r); err == nil || !strings.Contains(err.Error(), "no room left for the data") {
			t.Errorf("data area %+v: %v, want it refused", r, err)
		}
	}
}

// TestStrokes: a line of many points is strokes of at most
// strokePoints points that join end to start, so that every segment of
// the line is drawn once.
func TestStrokes(t *testing.T) {
	for _, n := range []int{0, 1, 2, strokePoints, strokePoints + 1, 1000} {
		var pts plotter.XYs
		for i := range n {
			pts = append(pts, plotter.XY{X: float64(i), Y: float64(i % 3)})
		}
		ls, err := strokes(pts, draw.LineStyle{Width: 1})
		if err != nil {
			t.Fatal(err)
		}
		segments := 0
		next := 0.0
		for _, l := range ls {
			if len(l.XYs) > strokePoints || l.XYs[0].X != next {
				t.Fatalf("%d points: a stroke of %d points from x=%v, want at most %d from %v", n, len(l.XYs), l.XYs[0].X, strokePoints, next)
			}
			segments += len(l.XYs) - 1
			next = l.XYs[len(l.XYs)-1].X
		}
		if want := max(n-1, 0); segments != want {
			t.Errorf("%d points: %d segments drawn, want %d", n, segments, want)
		}
	}
}

// processCPU is the CPU time (user and system) the test process has used.
func processCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
