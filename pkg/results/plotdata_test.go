package results

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
)

// spectrumWant is the spectrum of 1000 samples of 1, 2, ..., 1000 µs in an
// HdrHistogram of 3 significant digits, computed by hand: the sample of
// nearest rank ceil(n p) is i µs = i*1000 ns, reported as the highest
// value of its bucket. With 2048 sub-buckets, values in [2^(10+b),
// 2^(11+b)) ns share buckets 2^b wide: 500000 ns is in [2^18, 2^19), b=8,
// floor(500000/256)*256+255 = 500223; the others are in [2^19, 2^20),
// b=9: 750000 -> 1464*512+511 = 750079, and so on. A 1000-sample run
// reaches 99.9% (one sample beyond it) and no further; 100% is the max.
var spectrumWant = func() []plot.SpectrumPoint {
	pv := [][2]float64{{50, 500.223}, {75, 750.079}, {90, 900.095}, {95, 950.271},
		{99, 990.207}, {99.5, 995.327}, {99.9, 999.423}, {100, 1000.447}}
	out := make([]plot.SpectrumPoint, len(pv))
	for i, x := range pv {
		out[i] = plot.SpectrumPoint{Percentile: x[0], ValueUS: x[1]}
	}
	return out
}()

func TestSpectrumFromHistogram(t *testing.T) {
	// hist.json has the merged histogram; hist-runs.json only the runs'
	// (odd and even samples), which merge to the same.
	for _, f := range []string{"testdata/hist.json", "testdata/hist-runs.json"} {
		docs, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		pts, err := Pool(docs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := SpectrumPoints(pts[0])
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(spectrumWant) {
			t.Errorf("%s: spectrum\n %v\nwant\n %v", f, got, spectrumWant)
		}
	}
	// The two documents pooled: every sample twice, the same percentiles
	// from the merged histograms.
	docs, _ := Load("testdata/hist.json", "testdata/hist-runs.json")
	pts, _ := Pool(docs, Options{})
	if p50, ok := pts[0].Figure("lat.p50"); !ok || p50 != 500.223 {
		t.Errorf("pooled p50 = %v, %v; want 500.223 from the merged histograms", p50, ok)
	}
}

// TestSpectrumWithoutHistogram: an old document's spectrum is its
// latency_us percentiles and maximum.
func TestSpectrumWithoutHistogram(t *testing.T) {
	docs, _ := Load("testdata/old.json")
	pts, _ := Pool(docs, Options{})
	got, err := SpectrumPoints(pts[0])
	want := "[{50 2} {90 2.5} {99 3} {99.9 4} {99.99 6} {100 6}]"
	if err != nil || fmt.Sprint(got) != want {
		t.Errorf("spectrum %v (%v), want %s", got, err, want)
	}
	if got, _ := SpectrumPoints(pts[1]); got != nil {
		t.Errorf("bandwidth point's spectrum %v, want none", got)
	}
}

func loadSides(t *testing.T, paths ...string) []*Group {
	t.Helper()
	docs, err := Load(paths...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Groups(docs, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSizeSeries: one line per workload and label, TCP as its own family;
// a point in two documents of one label shows the median of their merged
// figures.
func TestSizeSeries(t *testing.T) {
	s := loadSides(t, "testdata/base", "testdata/new")
	var got []string
	for _, l := range LatencySeries(s) {
		got = append(got, fmt.Sprintf("%s %s %v", l.Name, l.Family, l.Points))
	}
	want := []string{
		// the median of 2.1 (a.json, 3,000 samples) and 2.3 (b.json,
		// 1,000; no histograms to merge): its caveat counts the fewer
		"write_lat (base) RDMA [{64 2.2 3.3 4.4 {1000 false}}]",
		"tcp_lat (base) TCP [{64 11 16.5 22 {3000 false}}]",
		"write_lat (candidate) RDMA [{64 2.5 3.75 5 {3000 false}}]",
		"send_lat (candidate) RDMA [{64 2.3 3.45 4.6 {3000 false}}]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("latency series:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	bw := RateSeries(s, plot.Bandwidth)
	if fmt.Sprint(bw) != "[{write_bw (base) RDMA [{65536 9.1 {0 false}}]} {write_bw (candidate) RDMA [{65536 8.1 {0 false}}]}]" {
		t.Errorf("bandwidth series %v", bw)
	}
	cpu := CPUPerGBSeries(loadSides(t, "testdata/qps4.json", "testdata/base/a.json"))
	if fmt.Sprint(cpu) != "[{write_bw qps=1 (base) RDMA [{65536 0.5 {0 false}}]} {write_bw qps=4 (candidate) RDMA [{65536 0.5 {0 false}}]}]" {
		t.Errorf("cpu series %v", cpu)
	}
}

// TestTrends: the runs' median at each label, in started_at order, one
// chart per workload; too few runs for an interval draw no bar.
func TestTrends(t *testing.T) {
	s := loadSides(t, "testdata/new", "testdata/base")
	charts, err := Trends(s, "lat.p50")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range charts {
		for i := range c.Series {
			for j, v := range c.Series[i].Values {
				c.Series[i].Values[j].Median = math.Round(v.Median*1e9) / 1e9
			}
		}
		got = append(got, fmt.Sprintf("%s %q %v", c.Name, c.Labels, c.Series))
	}
	want := []string{
		`trend_write_lat_lat.p50 ["base" "candidate"] [{RC poll 64 B RDMA [{2.15 NaN NaN false false} {2.5 NaN NaN false false}]}]`,
		`trend_tcp_lat_lat.p50 ["base" "candidate"] [{TCP poll 64 B TCP [{11 NaN NaN false false} {NaN NaN NaN false false}]}]`,
		`trend_send_lat_lat.p50 ["base" "candidate"] [{RC poll 64 B RDMA [{NaN NaN NaN false false} {2.3 NaN NaN false false}]}]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("trends:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := Trends(loadSides(t, "testdata/base"), "lat.p50"); err == nil ||
		err.Error() != "a trend needs documents of at least two labels, found 1" {
		t.Errorf("one label: %v", err)
	}
}

// TestWhiskers: the change and its interval, the gate's threshold edge,
// a regression where the gate failed, inconclusive where it could not
// decide; an unbounded interval is none.
func TestWhiskers(t *testing.T) {
	lo := compare.Row{Point: "write_lat RC poll 64 B", Metric: metric.LatP50, ChangePct: 8, ChangeLoPct: 7, ChangeHiPct: 9}
	bw := compare.Row{Point: "write_bw RC poll 64 KiB", Metric: metric.BW, ChangePct: -12, ChangeLoPct: math.Inf(-1), ChangeHiPct: math.Inf(1)}
	g := compare.Gate([]compare.Row{lo, bw}, defaultThresholds(t), false)
	ws := Whiskers(g)
	if len(ws) != 2 || ws[0].Label != "write_lat RC poll 64 B lat.p50" || ws[0].DeltaPct != 8 || ws[0].LoPct != 7 ||
		*ws[0].ThresholdPct != 5 || ws[0].Regression != (g.Rows[0].Outcome == compare.OutcomeFail) {
		t.Errorf("latency whisker %+v (outcome %v)", ws[0], g.Rows[0].Outcome)
	}
	// An unbounded interval cannot clear the threshold: inconclusive.
	if !math.IsNaN(ws[1].LoPct) || !math.IsNaN(ws[1].HiPct) || *ws[1].ThresholdPct != -3 || ws[1].Regression ||
		!ws[1].Inconclusive || g.Rows[1].Outcome != compare.OutcomeInconclusive {
		t.Errorf("bandwidth whisker %+v (outcome %v)", ws[1], g.Rows[1].Outcome)
	}
	if ws[0].Inconclusive != (g.Rows[0].Outcome == compare.OutcomeInconclusive) {
		t.Errorf("latency whisker inconclusive %v, outcome %v", ws[0].Inconclusive, g.Rows[0].Outcome)
	}
}

func TestCaption(t *testing.T) {
	docs, _ := Load("testdata/base", "testdata/new")
	c := CaptionOf(docs)
	want := plot.Caption{Device: "mlx5_0 port 1", Firmware: "20.31.1014, 20.35.2000", Host: "node1",
		Date: "2026-11-20 to 2026-11-21", Tool: "rdma-bench 0.2.0, 0.3.0",
		Extra: [][2]string{{"label", "base, candidate"}, {"kernel", "6.1.0-18-amd64, 6.1.0-21-amd64"}, {"driver", "mlx5_core"}}}
	if fmt.Sprint(c) != fmt.Sprint(want) {
		t.Errorf("caption\n %+v\nwant\n %+v", c, want)
	}
}

// TestCaptionOfManyLabels: a caption names a few of many labels and how
// many there are, so that a chart of a thousand labels keeps its room.
func TestCaptionOfManyLabels(t *testing.T) {
	var docs []*document.Document
	for i := range 1000 {
		docs = append(docs, &document.Document{Label: fmt.Sprintf("r%04d", i)}, &document.Document{Label: fmt.Sprintf("r%04d", i)})
	}
	c := CaptionOf(docs)
	if want := [2]string{"label", "r0000, r0001, r0002, …, r0999 (1000 in all)"}; len(c.Extra) != 1 || c.Extra[0] != want {
		t.Errorf("caption extras %q, want %q", c.Extra, want)
	}
	for n, want := range map[int]string{0: "", 1: "a0", 6: "a0, a1, a2, a3, a4, a5", 7: "a0, a1, a2, …, a6 (7 in all)"} {
		var vals []string
		for i := range n {
			vals = append(vals, fmt.Sprintf("a%d", i))
		}
		if got := briefList(vals); got != want {
			t.Errorf("briefList(%d values) = %q, want %q", n, got, want)
		}
	}
}

// defaultThresholds are compare's default --fail-on.
func defaultThresholds(t *testing.T) []compare.Threshold {
	t.Helper()
	th, err := compare.ParseThresholds(compare.DefaultThresholdSpec)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// TestWhiskerCaveats: a comparison row is marked thin when a run of
// either side had too few samples for its percentile, and unclean when an
// unclean run is among either side's values (not when left out).
func TestWhiskerCaveats(t *testing.T) {
	row := func(base, nw compare.RunCounts) compare.GateRow {
		var g compare.GateRow
		g.Point, g.ChangeLoPct, g.ChangeHiPct = "write_lat 64 B", -1, 1
		g.Base.RunCounts, g.New.RunCounts = base, nw
		return g
	}
	w := Whiskers(compare.GateResult{Rows: []compare.GateRow{
		row(compare.RunCounts{}, compare.RunCounts{}),
		row(compare.RunCounts{Thin: 2}, compare.RunCounts{}),
		row(compare.RunCounts{}, compare.RunCounts{Unclean: 1}),
		row(compare.RunCounts{Dropped: 3}, compare.RunCounts{}),
	}})
	want := [][2]bool{{false, false}, {true, false}, {false, true}, {false, false}}
	for i, x := range w {
		if got := [2]bool{x.Thin, x.Unclean}; got != want[i] {
			t.Errorf("row %d: thin, unclean %v, want %v", i, got, want[i])
		}
	}
}

// TestTrendsJoinLabelParams: a parameter that one label sets for all its
// points and the next changes (the MTU of a firmware) joins the point's
// values across the labels in one series, named with the change, instead
// of a series a label.
func TestTrendsJoinLabelParams(t *testing.T) {
	charts, err := Trends(loadSides(t, newWithMTU1024(t), "testdata/base"), "lat.p50")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range charts {
		if c.Name != "trend_write_lat_lat.p50" {
			continue
		}
		for _, s := range c.Series {
			n := 0
			for _, v := range s.Values {
				if !math.IsNaN(v.Median) {
					n++
				}
			}
			got = append(got, fmt.Sprintf("%s: %d values", s.Name, n))
		}
	}
	want := "RC poll 64 B (changes by label: mtu 4096 (base), 1024 (candidate)): 2 values"
	if strings.Join(got, "|") != want {
		t.Errorf("write_lat series %q, want one joined: %q", got, want)
	}
}

// newWithMTU1024 is a directory holding testdata/new's document with an
// MTU of 1024 where it had 4096: a side that changed the MTU.
func newWithMTU1024(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile("testdata/new/c.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.json"), bytes.ReplaceAll(b, []byte(`"mtu": 4096`), []byte(`"mtu": 1024`)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
