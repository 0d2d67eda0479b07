package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

// TestPlotFlagBadDirectory: run and suite refuse a --plot directory that
// cannot be made before anything runs (exit 2), and leave no directory
// of their check behind.
func TestPlotFlagBadDirectory(t *testing.T) {
	parent := t.TempDir()
	file := filepath.Join(parent, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		want string
		args []string
	}{
		{"--plot " + file + ": not a directory", []string{"run", "write_lat", "--loopback", "--plot", file}},
		{"--plot " + file + "/plots: not a directory", []string{"suite", "--loopback", "--plot", filepath.Join(file, "plots")}},
		// A good directory, then a bad workload: the check made the
		// directory and took it away again.
		{`unknown workload "nosuch_lat"`, []string{"run", "nosuch_lat", "--loopback", "--plot", filepath.Join(parent, "new", "plots")}},
	} {
		r := run(t, 30*time.Second, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
		assertFiles(t, parent, nil, "file")
	}
}

// TestRunPlot: run --plot draws the charts plot draws of the document
// just measured, here a load curve: the closed loop and two rates.
func TestRunPlot(t *testing.T) {
	testenv.Device(t)
	dir := filepath.Join(t.TempDir(), "plots")
	r := run(t, 5*time.Minute, "run", "write_lat", "--loopback", "-s", "64", "-n", "300", "--rate", "2000,4000", "--plot", dir)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	assertFiles(t, dir, []string{"latency_vs_size", "spectrum_write_lat_RC_poll_64B", "load_write_lat_RC_poll_64B"})
	if !strings.Contains(r.stderr, "wrote 3 charts (SVG and PNG) into "+dir) {
		t.Errorf("stderr does not say where the charts went:\n%s", r.stderr)
	}
	texts := svgTexts(t, filepath.Join(dir, "load_write_lat_RC_poll_64B.svg"))
	for _, w := range []string{"write_lat RC poll 64 B: latency against offered load", "2k", "4k", "closed-loop p50: "} {
		if !hasText(texts, w) {
			t.Errorf("load chart: no text %q in %q", w, texts)
		}
	}
}

// TestSuitePlot: suite --plot draws the RDMA-against-TCP charts beside
// the saved document.
func TestSuitePlot(t *testing.T) {
	testenv.Device(t)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "plots")
	r := run(t, 5*time.Minute, "suite", "--loopback", "--sizes", "64", "-n", "200", "--save", "--results-dir", tmp, "--plot", dir)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	assertFiles(t, dir, []string{"latency_vs_size", "bandwidth_vs_size", "msgrate_vs_size", "cpu_per_gb_vs_size",
		"spectrum_write_lat_RC_poll_64B", "spectrum_read_lat_RC_poll_64B", "spectrum_send_lat_RC_poll_64B", "spectrum_tcp_lat_TCP_poll_64B"})
	for chart, want := range map[string][]string{
		"latency_vs_size":   {"write_lat", "read_lat", "send_lat", "tcp_lat", "p50 (median)"},
		"bandwidth_vs_size": {"write_bw", "read_bw", "send_bw", "tcp_bw", "bandwidth (Gb/s)"},
	} {
		texts := svgTexts(t, filepath.Join(dir, chart+".svg"))
		for _, w := range want {
			if !hasText(texts, w) {
				t.Errorf("%s.svg: no text %q in %q", chart, w, texts)
			}
		}
	}
	// The same charts as plot draws of the saved document.
	saved, _ := filepath.Glob(filepath.Join(tmp, "rdma-bench-*-suite.json"))
	if len(saved) != 1 {
		t.Fatalf("saved %v, want one document", saved)
	}
	again := filepath.Join(tmp, "again")
	if r := run(t, time.Minute, "plot", saved[0], "--dir", again); r.code != 0 {
		t.Fatalf("plot: exit %d: %s", r.code, r.stderr)
	}
	for _, name := range []string{"latency_vs_size.svg", "spectrum_tcp_lat_TCP_poll_64B.svg"} {
		a, b := svgTexts(t, filepath.Join(dir, name)), svgTexts(t, filepath.Join(again, name))
		if strings.Join(a, "|") != strings.Join(b, "|") {
			t.Errorf("%s: --plot wrote %q, plot %q", name, a, b)
		}
	}
}
