package plot

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/plot/plottest"
)

// chartCase is a chart and what its picture must say.
type chartCase struct {
	name    string
	chart   func() (*Chart, error)
	texts   []string // exact texts: title, axis labels with units, ticks, legend
	counts  map[string]int
	rotated int // how many texts besides the y axis title are turned
}

func sizesFrom(lo, hi int) []int {
	var s []int
	for n := lo; n <= hi; n *= 2 {
		s = append(s, n)
	}
	return s
}

func chartCases() []chartCase {
	sizeTicks := []string{"message size (bytes)", "2", "64", "4K", "64K", "1M"}
	lat := append([]string{"latency (µs)", "write_lat", "read_lat", "send_lat", "tcp_lat", "p50 (median)", "p99", "p99.9"}, sizeTicks...)
	bw := append([]string{"bandwidth (Gb/s)", "write_bw", "read_bw", "send_bw", "tcp_bw", "0", "10", "20", "30"}, sizeTicks...)
	cases := []chartCase{
		{name: "latency suite", texts: append([]string{"Latency by size"}, lat...),
			chart: func() (*Chart, error) {
				return LatencyVsSize("Latency by size", latencySeries(suiteSizes), testCaption)
			}},
		{name: "bandwidth suite", texts: append([]string{"Bandwidth"}, bw...),
			chart: func() (*Chart, error) {
				return RateVsSize("Bandwidth", Bandwidth, rateSeries(suiteSizes, Bandwidth), testCaption)
			}},
		{name: "spectrum", texts: []string{"Spectrum", "percentile", "latency (µs)", "50%", "90%", "99%", "99.9%", "99.99%", "99.999%"},
			chart: func() (*Chart, error) {
				return Spectrum("Spectrum", []SpectrumCurve{spectrum("write_lat 64", RDMA, 4, 0.18), spectrum("tcp_lat 64", TCP, 18, 0.3)}, testCaption)
			}},
		{name: "comparison", texts: []string{"Comparison", "change against baseline (%, log-ratio scale)", "-5%", "0%", "+5%",
			"within threshold", "regression", "95% interval", "threshold", "read_bw 1M", "-9.5%", "+8.4%"},
			rotated: -1, // the row labels need no y axis title
			chart:   func() (*Chart, error) { return ComparisonWhiskers("Comparison", whiskers40(), testCaption) }},
		{name: "trend", texts: []string{"Trend", "p50 latency (µs)", "write_lat 64 p50", "tcp_lat 64 p50",
			"20.35.1012", "20.39.1100", "2", "4", "12"},
			chart: func() (*Chart, error) {
				labels, ts := trendSeries()
				return Trend("Trend", "p50 latency (µs)", labels, ts, testCaption)
			}},
		{name: "trend long labels", texts: []string{"write_lat 64 p50 with a long name to push the legend below", "2", "12"}, rotated: 12,
			chart: func() (*Chart, error) {
				labels, ts := longTrend()
				return Trend("Twelve long labels", "p50 latency (µs)", labels, ts, testCaption)
			}},
		{name: "matrix 4", texts: []string{"Matrix", "client host", "server host", "Gb/s", "no data", "62.5", "96.9"},
			counts: map[string]int{"gpu-node-a0": 2, "gpu-node-a3": 2}, rotated: 1, // the unit beside the colour bar
			chart: func() (*Chart, error) { return Matrix("Matrix", matrix(4, "Gb/s"), testCaption) }},
		{name: "matrix 16", texts: []string{"Matrix 16", "client host", "server host", "Gb/s", "no data"},
			counts: map[string]int{"gpu-node-b5": 2}, rotated: 17, // column labels and the unit
			chart: func() (*Chart, error) { return Matrix("Matrix 16", matrix(16, "Gb/s"), testCaption) }},
	}
	// Every sweep the tool runs, 2 B .. 8 MiB and 24 sizes either way.
	for _, sw := range []struct {
		name   string
		lo, hi int
	}{{"sweep 2..8M", 2, 8 << 20}, {"sweep 1..8M", 1, 8 << 20}, {"sweep 2..16M", 2, 16 << 20}} {
		sizes := sizesFrom(sw.lo, sw.hi)
		cases = append(cases,
			chartCase{name: "latency " + sw.name, texts: []string{"message size (bytes)", "latency (µs)", "64", "4K", "64K", "1M", "4M"},
				chart: func() (*Chart, error) { return LatencyVsSize("Latency "+sw.name, latencySeries(sizes), testCaption) }},
			chartCase{name: "message rate " + sw.name, texts: []string{"message rate (Mpps)", "0.001", "0.01", "0.1", "1", "64", "4K", "1M"},
				chart: func() (*Chart, error) {
					return RateVsSize("Rate "+sw.name, MessageRate, rateSeries(sizes, MessageRate), testCaption)
				}},
			chartCase{name: "cpu " + sw.name, texts: []string{"CPU time per GB moved (CPU s/GB, lower is better)", "write_bw", "tcp_bw", "0.1", "1", "10", "100"},
				chart: func() (*Chart, error) { return CPUPerGBVsSize("CPU "+sw.name, cpuSeries(sizes), testCaption) }})
	}
	return append(cases, loadChartCases()...)
}

// TestChartSVG reads every chart's SVG as a viewer would: the title, axis
// labels with units, tick labels and legend entries are there as text,
// no two texts overlap, and the legend lies outside the data.
func TestChartSVG(t *testing.T) {
	for _, c := range chartCases() {
		t.Run(c.name, func(t *testing.T) {
			ch, err := c.chart()
			if err != nil {
				t.Fatal(err)
			}
			b, err := ch.svgBytes()
			if err != nil {
				t.Fatal(err)
			}
			texts, title := parseSVG(t, b)
			if title != ch.Title() {
				t.Errorf("<title> %q, want %q", title, ch.Title())
			}
			got := textSet(texts)
			for _, want := range c.texts {
				if got[want] == 0 {
					t.Errorf("no text %q in the picture", want)
				}
			}
			for s, n := range c.counts {
				if got[s] != n {
					t.Errorf("text %q %d times, want %d", s, got[s], n)
				}
			}
			full := strings.Join([]string{"device: rxe0 port 1 (soft-RoCE over eth0)", "firmware: n/a (software)",
				"host: bench-a → bench-b", "date: 2025-03-14T10:22:05Z", "rdma-bench v0.4.0-12-gdeadbee"}, captionSep)
			// A narrow chart breaks the caption after the host.
			if got[full] == 0 && got[full[:strings.Index(full, "bench-b")+len("bench-b")]] == 0 {
				t.Errorf("no caption line %q in the picture", full)
			}
			checkNoOverlap(t, c.name, texts)
			rotated := 0
			for _, tx := range texts {
				if tx.rotated {
					rotated++
				}
			}
			if want := c.rotated + 1; rotated != want { // +1: the y axis title
				t.Errorf("%d rotated texts, want %d", rotated, want)
			}
			lo := ch.laidOut
			if lo.legend.Size().X > 0 && lo.legend.Min.X < lo.data.Max.X && lo.data.Min.X < lo.legend.Max.X &&
				lo.legend.Min.Y < lo.data.Max.Y && lo.data.Min.Y < lo.legend.Max.Y {
				t.Errorf("legend %+v overlaps the data area %+v", lo.legend, lo.data)
			}
		})
	}
}

// TestChartPNG decodes every chart's PNG: 96 dpi, the chart's size, and
// not blank.
func TestChartPNG(t *testing.T) {
	for _, c := range chartCases() {
		t.Run(c.name, func(t *testing.T) {
			ch, err := c.chart()
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := ch.WritePNG(&buf); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil {
				t.Fatalf("PNG does not decode: %v", err)
			}
			w, h := ch.Size()
			if b := img.Bounds(); b.Dx() != int(w*96/72+0.5) || b.Dy() != int(h*96/72+0.5) {
				t.Errorf("PNG is %dx%d pixels, want %.0fx%.0f (%gx%g pt at 96 dpi)", b.Dx(), b.Dy(), w*96/72, h*96/72, w, h)
			}
			if n := plottest.Colours(img); n < 10 {
				t.Errorf("PNG has %d colours: blank or nearly", n)
			}
		})
	}
}
