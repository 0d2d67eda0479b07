package plot

import (
	"flag"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var reviewDir = flag.String("review", "", "write every chart of the fake data as SVG and PNG into this directory, to look at")

// reviewCharts builds every chart the package draws from the fake data.
func reviewCharts(t *testing.T) map[string]*Chart {
	t.Helper()
	out := map[string]*Chart{}
	add := func(name string, ch *Chart, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = ch
	}
	ch, err := LatencyVsSize("Latency by message size: RDMA verbs against TCP", latencySeries(suiteSizes), testCaption)
	add("latency_suite", ch, err)
	ch, err = LatencyVsSize("Latency sweep 2 B .. 8 MiB", latencySeries(sweepSizes()), testCaption)
	add("latency_sweep", ch, err)
	ch, err = RateVsSize("Bandwidth by message size", Bandwidth, rateSeries(suiteSizes, Bandwidth), testCaption)
	add("bandwidth_suite", ch, err)
	ch, err = RateVsSize("Bandwidth sweep 2 B .. 8 MiB", Bandwidth, rateSeries(sweepSizes(), Bandwidth), testCaption)
	add("bandwidth_sweep", ch, err)
	ch, err = RateVsSize("Message rate sweep", MessageRate, rateSeries(sweepSizes(), MessageRate), testCaption)
	add("msgrate_sweep", ch, err)
	ch, err = CPUPerGBVsSize("CPU cost per GB: RDMA against TCP", cpuSeries(sweepSizes()), testCaption)
	add("cpu_sweep", ch, err)
	moreReviewCharts(t, out)
	return out
}

func TestReview(t *testing.T) {
	if *reviewDir == "" {
		t.Skip("no -review directory given")
	}
	for name, ch := range reviewCharts(t) {
		_, pngPath, err := Write(ch, *reviewDir, name)
		if err != nil {
			t.Fatal(err)
		}
		writeGrey(t, pngPath, filepath.Join(*reviewDir, name+".grey.png"))
	}
}

// moreReviewCharts builds the charts of the second half of the package.
func moreReviewCharts(t *testing.T, out map[string]*Chart) {
	t.Helper()
	add := func(name string, ch *Chart, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = ch
	}
	ch, err := Spectrum("Latency spectrum, 64 B: RDMA write against TCP", []SpectrumCurve{
		spectrum("write_lat 64", RDMA, 4, 0.18), spectrum("tcp_lat 64", TCP, 18, 0.3)}, testCaption)
	add("spectrum_rdma_tcp", ch, err)
	ch, err = Spectrum("write_lat 64 B: baseline against candidate firmware", []SpectrumCurve{
		spectrum("baseline 20.38.1002", RDMA, 4, 0.05), spectrum("candidate 20.39.1100", RDMA, 4.3, 0.06)}, testCaption)
	add("spectrum_baseline_candidate", ch, err)
	ch, err = ComparisonWhiskers("Candidate firmware 20.39.1100 against baseline 20.38.1002", whiskers40(), testCaption)
	add("comparison_40", ch, err)
	labels, ts := trendSeries()
	ch, err = Trend("p50 latency at 64 B across firmware versions", "p50 latency (µs)", labels, ts, testCaption)
	add("trend_firmware", ch, err)
	long, lts := longTrend()
	ch, err = Trend("Twelve long labels", "p50 latency (µs)", long, lts, testCaption)
	add("trend_long_labels", ch, err)
	for _, c := range loadChartCases() {
		ch, err := c.chart()
		add(strings.ReplaceAll(c.name, " ", "_"), ch, err)
	}
	ch, err = Matrix("write_bw between host pairs (4 hosts)", matrix(4, "Gb/s"), testCaption)
	add("matrix_4", ch, err)
	ch, err = Matrix("write_bw between host pairs (16 hosts)", matrix(16, "Gb/s"), testCaption)
	add("matrix_16", ch, err)
}

// writeGrey writes a grey-scale copy of a PNG, to see the chart as a
// black-and-white printout shows it.
func writeGrey(t *testing.T, from, to string) {
	t.Helper()
	f, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	grey := image.NewGray(img.Bounds())
	draw.Draw(grey, grey.Bounds(), img, img.Bounds().Min, draw.Src)
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if err := png.Encode(out, grey); err != nil {
		t.Fatal(err)
	}
}
