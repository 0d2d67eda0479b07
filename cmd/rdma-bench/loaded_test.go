package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

// loadedLevels is the loaded-latency sweep of the tests: 8 levels, 0 the
// unloaded one.
const loadedLevels = "0,1,2,3,4,5,6,7"

// TestLoadedLatencyBadInput: a loaders count where it cannot apply, out
// of range or twice, and two sweeps at once, are bad input: exit 2 with
// what to do, before anything is measured.
func TestLoadedLatencyBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "write_bw", "--loopback", "--rate", "1000", "--loaders", "1"}, "--loaders applies to write_lat, read_lat, send_lat, not write_bw"},
		{[]string{"run", "tcp_lat", "--loopback", "--loaders", "1"}, "--loaders applies to write_lat, read_lat, send_lat, not tcp_lat"},
		{[]string{"run", "atomic_lat", "--loopback", "--rate", "1000", "--loaders", "1"}, "not atomic_lat"},
		{[]string{"run", "write_lat", "--loopback", "--rate", "1000", "--loaders", "-1"}, "want a whole number from 0 to 64"},
		{[]string{"run", "write_lat", "--loopback", "--rate", "1000", "--loaders", "0,1,1"}, "1 is in the list twice"},
		{[]string{"run", "write_lat", "--loopback", "--rate", "1000,2000", "--loaders", "0,1"}, "sweep one of them"},
		{[]string{"run", "write_lat", "--loopback", "--loaders", "1"}, "give --rate too"},
		{[]string{"suite", "--loopback", "--loaders", "1"}, "--loaders does not apply to the suite"},
		{[]string{"server", "--loaders", "0,1"}, "server takes one count"},
	} {
		r := run(t, 30*time.Second, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// loadedDoc is the part of a saved loaded-latency document the test reads.
type loadedDoc struct {
	Results []struct {
		Params    map[string]json.RawMessage
		LatencyUS *struct {
			P50   *float64 `json:"p50"`
			P99   *float64 `json:"p99"`
			P99_9 *float64 `json:"p99_9"`
		} `json:"latency_us"`
		OpenLoop *struct {
			RateOPS int `json:"rate_ops"`
		} `json:"open_loop"`
		Loaded *struct {
			Loaders  int
			Workload string
			BwGbps   *float64 `json:"bw_gbps"`
		}
	}
	LoadedCurves []struct {
		Levels      []int
		KneeLoaders *int `json:"knee_loaders"`
		Summary     string
	} `json:"loaded_curves"`
}

// TestLoadedLatency runs a loaded-latency sweep on the device: write_lat
// open-loop at one rate beside 0 to 7 write_bw loaders, a point a level.
// Every level has its latency percentiles, every loaded one its loaders'
// bandwidth, which is higher at the top level than at the first; the
// document judges the curve (a knee, or no knee said), and the table, the
// note and the chart all show it.
func TestLoadedLatency(t *testing.T) {
	testenv.Device(t)
	tmp := t.TempDir()
	plots := filepath.Join(tmp, "plots")
	r := run(t, 8*time.Minute, "run", "write_lat", "--loopback", "-s", "64", "--rate", "1000", "--loaders", loadedLevels,
		"-D", "0.5", "--save", "--results-dir", tmp, "--plot", plots)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	t.Logf("%s", r.stdout)
	for _, w := range []string{"loaders_BW[Gb/s]", "loaded: write_lat 64 bytes at 1000 ops/s: "} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
		}
	}
	files, _ := filepath.Glob(filepath.Join(tmp, "*.json"))
	if len(files) != 1 {
		t.Fatalf("saved %v, want one document", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var d loadedDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Results) != 8 {
		t.Fatalf("%d results, want 8 levels", len(d.Results))
	}
	var bw []float64
	for i, res := range d.Results {
		l := res.LatencyUS
		if l == nil || l.P50 == nil || l.P99 == nil || l.P99_9 == nil || res.OpenLoop == nil || res.OpenLoop.RateOPS != 1000 {
			t.Errorf("level %d: no open-loop p50/p99/p99.9 at 1000 ops/s: %+v", i, res)
		}
		if i == 0 {
			if res.Loaded != nil {
				t.Errorf("level 0 has loaders: %+v", res.Loaded)
			}
			continue
		}
		n, _ := strconv.Atoi(string(res.Params["loaders"]))
		if res.Loaded == nil || res.Loaded.Loaders != i || n != i || res.Loaded.Workload != "write_bw" || res.Loaded.BwGbps == nil || *res.Loaded.BwGbps <= 0 {
			t.Fatalf("level %d: loaders %d, block %+v; want %d write_bw loaders that moved data", i, n, res.Loaded, i)
		}
		bw = append(bw, *res.Loaded.BwGbps)
	}
	if bw[len(bw)-1] <= bw[0] {
		t.Errorf("loaders' bandwidth %v Gb/s: the top level's is not above the first's", bw)
	}
	if len(d.LoadedCurves) != 1 || len(d.LoadedCurves[0].Levels) != 8 {
		t.Fatalf("loaded_curves %+v: want one curve of 8 levels", d.LoadedCurves)
	}
	c := d.LoadedCurves[0]
	if c.KneeLoaders == nil && !strings.HasPrefix(c.Summary, "no knee up to 7 loaders") ||
		c.KneeLoaders != nil && !strings.HasPrefix(c.Summary, "knee at "+strconv.Itoa(*c.KneeLoaders)+" loader") {
		t.Errorf("loaded curve: knee %v, summary %q", c.KneeLoaders, c.Summary)
	}
	name := "loaded_write_lat_RC_poll_64B_at_1000ops"
	texts := svgTexts(t, filepath.Join(plots, name+".svg"))
	for _, w := range []string{"latency against loaders' bandwidth", "loaders' bandwidth (Gb/s), all loader QPs together", "p99.9"} {
		if !hasText(texts, w) {
			t.Errorf("%s.svg: no text %q in %q", name, w, texts)
		}
	}
}

// loadedFixture is a real document of soft-RoCE in the VM: rdma-bench run
// write_lat --loopback -s 64 --rate 1000 --loaders 0,1,2,3,4,5,6,7,8 -D 1
// --save. Its loaded_curves says the knee is at 1 loader.
const loadedFixture = "testdata/plot/loaded.json"

// TestPlotLoaded: a saved loaded-latency document gets its chart, with
// the knee it recorded; asked of a document without one, it is bad input.
func TestPlotLoaded(t *testing.T) {
	dir := t.TempDir()
	r := runHere(t, 60*time.Second, "plot", loadedFixture, "--dir", dir, "--charts", "loaded")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	name := "loaded_write_lat_RC_poll_64B_at_1000ops"
	assertFiles(t, dir, []string{name})
	texts := svgTexts(t, filepath.Join(dir, name+".svg"))
	for _, w := range []string{"write_lat RC poll 64 B at 1000 ops/s: latency against loaders' bandwidth", "knee: 1 loader, 0.00933 Gb/s", "p99.9", "0.03"} {
		if !hasText(texts, w) {
			t.Errorf("%s.svg: no text %q in %q", name, w, texts)
		}
	}
	// Every kind: the levels share one spectrum, and stay off the
	// latency-against-size chart (which then has nothing to draw).
	dir = t.TempDir()
	if r := runHere(t, 60*time.Second, "plot", loadedFixture, "--dir", dir); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	spectrum := "spectrum_write_lat_RC_poll_64B_at_1000ops"
	assertFiles(t, dir, []string{name, spectrum})
	texts = svgTexts(t, filepath.Join(dir, spectrum+".svg"))
	for _, w := range []string{"latency spectrum at each loader level", "0 loaders", "1 loader", "8 loaders"} {
		if !hasText(texts, w) {
			t.Errorf("%s.svg: no text %q in %q", spectrum, w, texts)
		}
	}
	parent := t.TempDir()
	r = runHere(t, 30*time.Second, "plot", fixtures+"base.json", "--charts", "loaded", "--dir", filepath.Join(parent, "plots"))
	if want := "loaded: no loaded-latency curve in the documents"; r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want exit 2 and %q", r.code, r.stderr, want)
	}
	assertEmpty(t, parent)
}

// TestReportLoaded: the report has a section for the loaded curve: the
// rule, the document's verdict, the chart and a row per level.
func TestReportLoaded(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.html")
	if r := runHere(t, 60*time.Second, "report", loadedFixture, "-o", out); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	p := readPage(t, out)
	for _, w := range []string{"Loaded latency", "the knee is the first level whose p99 passed 2 times the lowest level's",
		"knee at 1 loaders (0.009 Gb/s of write_bw beside)", "loaders_BW[Gb/s]", "0.00933", "16490.495"} {
		if !strings.Contains(p.text, w) {
			t.Errorf("report lacks %q", w)
		}
	}
}
