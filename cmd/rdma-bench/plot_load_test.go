package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// curveFixture is a real document of soft-RoCE in the VM: rdma-bench run
// write_lat --loopback -n 2000 --rate 2000,5000,10000,20000 --save. Its
// closed-loop p50 is 17.073 µs; its load_curves says the knee is 5000.
const curveFixture = "testdata/plot/curve.json"

// TestPlotLoadCurve: a document with a load curve gets its
// latency-against-load chart, with the rates, the closed-loop p50 and the
// knee the document holds; the latency-against-size chart keeps the closed
// loop and the spectra of the rates share one chart.
func TestPlotLoadCurve(t *testing.T) {
	dir := t.TempDir()
	r := runHere(t, 60*time.Second, "plot", curveFixture, "--dir", dir)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	assertFiles(t, dir, []string{"latency_vs_size", "spectrum_write_lat_RC_poll_2B", "load_write_lat_RC_poll_2B"})
	for chart, want := range map[string][]string{
		"load_write_lat_RC_poll_2B": {"write_lat RC poll 2 B: latency against offered load", "offered load (operations/s)", "latency (µs)",
			"2k", "5k", "10k", "20k", "write_lat RC poll 2 B", "closed-loop p50: 17.07 µs", "knee: 5k ops/s", "p99.9"},
		"spectrum_write_lat_RC_poll_2B": {"latency spectrum at each offered rate", "closed loop (max 1631 µs)", "at 5000 ops/s (max 18891 µs)",
			"at 20000 ops/s"},
		"latency_vs_size": {"write_lat"},
	} {
		texts := svgTexts(t, filepath.Join(dir, chart+".svg"))
		for _, w := range want {
			if !hasText(texts, w) {
				t.Errorf("%s.svg: no text %q in %q", chart, w, texts)
			}
		}
		if chart == "latency_vs_size" && hasText(texts, "ops/s") {
			t.Errorf("latency_vs_size.svg mixes the rates in: %q", texts)
		}
	}
	// Asked for alone.
	dir = t.TempDir()
	if r := runHere(t, 60*time.Second, "plot", curveFixture, "--dir", dir, "--charts", "load"); r.code != 0 {
		t.Fatalf("--charts load: exit %d: %s", r.code, r.stderr)
	}
	assertFiles(t, dir, []string{"load_write_lat_RC_poll_2B"})
}

// TestPlotLoadBadInput: a load chart asked of a document without a load
// curve is bad input: exit 2 and no file.
func TestPlotLoadBadInput(t *testing.T) {
	parent := t.TempDir()
	r := runHere(t, 30*time.Second, "plot", fixtures+"base.json", "--charts", "latency,load", "--dir", filepath.Join(parent, "plots"))
	want := "load: no load curve in the documents: a latency-against-load chart needs a latency point run at two offered rates or more"
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want exit 2 and %q", r.code, r.stderr, want)
	}
	assertEmpty(t, parent)
}

// TestReportLoadCurve: the report has a section for the load curve: the
// rule, the document's verdict, the chart and a row per rate.
func TestReportLoadCurve(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.html")
	r := runHere(t, 60*time.Second, "report", curveFixture, "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	p := readPage(t, out)
	if p.scripts != 0 || p.figures != 3 || p.svgs != 3 {
		t.Errorf("%d scripts, %d figures, %d svg; want 0, 3, 3", p.scripts, p.figures, p.svgs)
	}
	for _, w := range []string{"Latency against offered load", "achieved under 95% of it", "passed 2 times the lowest rate's",
		"knee between 2000 and 5000 ops/s offered: at 5000, p99 17815.13 us", "write_lat RC poll 2 B at 5000 ops/s", "10977.279", "knee"} {
		if !strings.Contains(p.text, w) {
			t.Errorf("report lacks %q", w)
		}
	}
	for _, w := range []string{"offered[ops/s]", "achieved[ops/s]", "service p99[usec]", "lag p99[usec]"} {
		if !strings.Contains(strings.Join(p.headers, "|"), w) {
			t.Errorf("no table header %q in %q", w, p.headers)
		}
	}
}
