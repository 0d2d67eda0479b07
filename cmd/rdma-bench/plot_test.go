package main

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// plotCharts are the charts of base.json and slower.json together: two
// labels, so trends too.
var plotCharts = []string{
	"latency_vs_size", "bandwidth_vs_size", "msgrate_vs_size", "cpu_per_gb_vs_size",
	"spectrum_write_lat_RC_poll_64B", "spectrum_write_lat_RC_poll_4KiB",
	"spectrum_tcp_lat_TCP_poll_64B", "spectrum_tcp_lat_TCP_poll_4KiB",
	"trend_write_lat_lat.p50", "trend_tcp_lat_lat.p50", "trend_write_bw_bw", "trend_tcp_bw_bw",
}

// TestPlot: every chart as SVG and PNG, each SVG well-formed with its
// series named, each PNG a PNG.
func TestPlot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plots")
	r := runHere(t, 60*time.Second, "plot", fixtures+"base.json", fixtures+"slower.json", "--dir", dir)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	assertFiles(t, dir, plotCharts)
	for chart, want := range map[string][]string{
		"latency_vs_size":                {"write_lat (base)", "tcp_lat (base)", "write_lat (candidate)", "tcp_lat (candidate)", "p99.9"},
		"bandwidth_vs_size":              {"write_bw (base)", "tcp_bw (candidate)"},
		"cpu_per_gb_vs_size":             {"write_bw (candidate)", "tcp_bw (base)"},
		"spectrum_write_lat_RC_poll_64B": {"base (max 2.987 µs)", "candidate (max 3.291 µs)", "99.9%"},
		"trend_write_lat_lat.p50":        {"RC poll 64 B", "RC poll 4 KiB", "base", "candidate", "p50 latency (µs)"},
		"trend_tcp_bw_bw":                {"TCP poll 64 KiB", "bandwidth (Gb/s)"},
	} {
		texts := svgTexts(t, filepath.Join(dir, chart+".svg"))
		for _, w := range want {
			if !hasText(texts, w) {
				t.Errorf("%s.svg: no text %q in %q", chart, w, texts)
			}
		}
	}
	for _, c := range plotCharts {
		f, err := os.Open(filepath.Join(dir, c+".png"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.DecodeConfig(f); err != nil {
			t.Errorf("%s.png: %v", c, err)
		}
		f.Close()
	}
}

// TestPlotChartsAndMetric: --charts picks charts; --metric the trend's.
func TestPlotChartsAndMetric(t *testing.T) {
	dir := t.TempDir()
	r := runHere(t, 60*time.Second, "plot", fixtures+"base.json", fixtures+"slower.json", "--dir", dir,
		"--charts", "latency,trend", "--metric", "lat.p99", "--labels", "candidate,base")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	assertFiles(t, dir, []string{"latency_vs_size", "trend_write_lat_lat.p99", "trend_tcp_lat_lat.p99"})
	// One unlabelled document: no trend, and no error unless asked.
	dir = t.TempDir()
	if r := runHere(t, 60*time.Second, "plot", fixtures+"bw-only.json", "--dir", dir); r.code != 0 {
		t.Fatalf("bandwidth only: exit %d: %s", r.code, r.stderr)
	}
	assertFiles(t, dir, []string{"bandwidth_vs_size", "msgrate_vs_size", "cpu_per_gb_vs_size"})
}

// TestPlotBadInput: a clear message, exit 2 and no file left behind.
func TestPlotBadInput(t *testing.T) {
	base := fixtures + "base.json"
	cases := []struct {
		want string
		args []string
	}{
		{"spectrum: no latency result in the documents: a spectrum needs latency points", []string{fixtures + "bw-only.json", "--charts", "spectrum"}},
		{`unknown chart "pie": choose from latency, bandwidth, msgrate, cpu, spectrum, load, loaded, trend`, []string{base, "--charts", "latency,pie"}},
		{"trend: a trend needs documents of at least two labels, found 1", []string{base, "--charts", "trend"}},
		{"--metric lat.p99: no trend to draw", []string{base, "--metric", "lat.p99"}},
		{`trend metric "lat.p42": unknown: choose from lat.p50`, []string{base, "--metric", "lat.p42"}},
		{`label order: no document labelled "fw-1": labels found: base`, []string{base, "--labels", "fw-1"}},
		{`testdata/compare/notrdma.json: not an rdma-bench document`, []string{base, fixtures + "notrdma.json"}},
		{"results[0] (write_lat RC poll 64 B): run 3 is partial", []string{fixtures + "partial.json"}},
		{"name the documents to plot", nil},
	}
	for _, c := range cases {
		parent := t.TempDir()
		r := runHere(t, 30*time.Second, append([]string{"plot", "--dir", filepath.Join(parent, "plots")}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("plot %v: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
		assertEmpty(t, parent)
	}
	// A directory that cannot be made, or is a file.
	parent := t.TempDir()
	file := filepath.Join(parent, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{file, filepath.Join(file, "plots")} {
		r := runHere(t, 30*time.Second, "plot", base, "--dir", d)
		if r.code != 2 || !strings.Contains(r.stderr, "chart directory "+d) {
			t.Errorf("--dir %s: exit %d, stderr %q", d, r.code, r.stderr)
		}
		assertFiles(t, parent, nil, "file")
	}
	// A chart that cannot be written after others were: the others are
	// removed again, nothing partial stays.
	dir := t.TempDir()
	blocker := "spectrum_write_lat_RC_poll_64B.png"
	if err := os.Mkdir(filepath.Join(dir, blocker), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runHere(t, 60*time.Second, "plot", base, "--dir", dir)
	if r.code != 2 || !strings.Contains(r.stderr, blocker+": is a directory") {
		t.Errorf("blocked chart: exit %d, stderr %q", r.code, r.stderr)
	}
	assertFiles(t, dir, nil, blocker)
}
