package results

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
)

// curveDoc is testdata/curve.json, a real run on soft-RoCE in the VM:
// rdma-bench run write_lat --loopback -n 2000 --rate 2000,5000,10000,20000:
// the closed loop, then each rate; its load_curves says the knee is 5000.
const curveDoc = "testdata/curve.json"

// rawCurve reads curve.json's figures with plain JSON decoding, apart from
// this package's reader: the rates, p50s, p99s and p99.9s of its results
// in order, and its load curve.
func rawCurve(t *testing.T) (rates []int, p50, p99, p99_9 []float64, curve map[string]any) {
	t.Helper()
	b, err := os.ReadFile(curveDoc)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Results []struct {
			Params    map[string]any     `json:"params"`
			LatencyUS map[string]float64 `json:"latency_us"`
		} `json:"results"`
		LoadCurves []map[string]any `json:"load_curves"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Results {
		rates = append(rates, int(r.Params["rate"].(float64)))
		p50 = append(p50, r.LatencyUS["p50"])
		p99 = append(p99, r.LatencyUS["p99"])
		p99_9 = append(p99_9, r.LatencyUS["p99_9"])
	}
	return rates, p50, p99, p99_9, d.LoadCurves[0]
}

func curveSides(t *testing.T, labels ...string) []*Group {
	t.Helper()
	var docs []*document.Document
	for range max(1, len(labels)) {
		d, err := ReadFile(curveDoc)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	for i, l := range labels {
		docs[i].Label = l
	}
	sides, err := Groups(docs, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sides
}

// TestLoadChartsFromRealDocument: one chart, the open-loop figures at each
// rate, the closed loop's p50 and the knee and summary the document
// recorded.
func TestLoadChartsFromRealDocument(t *testing.T) {
	rates, p50, p99, p99_9, curve := rawCurve(t)
	if rates[0] != 0 || len(rates) != 5 {
		t.Fatalf("curve.json: rates %v, want the closed loop (0) and four", rates)
	}
	charts := LoadCharts(curveSides(t))
	if len(charts) != 1 {
		t.Fatalf("%d load charts, want 1", len(charts))
	}
	c := charts[0]
	if c.Name != "load_write_lat_RC_poll_2B" || c.Title != "write_lat RC poll 2 B: latency against offered load" {
		t.Errorf("name %q, title %q", c.Name, c.Title)
	}
	want := plot.LoadCurve{Name: "write_lat RC poll 2 B", Family: plot.RDMA, ClosedP50US: p50[0], KneeOPS: curve["knee_ops"].(float64)}
	for i := 1; i < 5; i++ {
		// Every rate has 2,000 samples (too few for p99.9); the runs at
		// 5,000 ops/s and above were not clean.
		cv := plot.Caveat{Samples: 2000, Unclean: rates[i] >= 5000}
		want.Points = append(want.Points, plot.LoadPoint{OfferedOPS: float64(rates[i]), P50US: p50[i], P99US: p99[i], P99_9US: p99_9[i], Caveat: cv})
	}
	if len(c.Curves) != 1 || !sameCurve(c.Curves[0], want) {
		t.Errorf("curves %+v\nwant %+v", c.Curves, want)
	}
	if want.KneeOPS != 5000 {
		t.Errorf("curve.json's knee is %v: the fixture changed", want.KneeOPS)
	}
	if !slices.Equal(c.Summaries, []string{curve["summary"].(string)}) {
		t.Errorf("summaries %q, want the document's %q", c.Summaries, curve["summary"])
	}
}

func sameCurve(a, b plot.LoadCurve) bool {
	return a.Name == b.Name && a.Family == b.Family && a.ClosedP50US == b.ClosedP50US && a.KneeOPS == b.KneeOPS &&
		slices.Equal(a.Points, b.Points)
}

// Two labels: one chart, a curve per label, summaries named by label.
func TestLoadChartsTwoSides(t *testing.T) {
	charts := LoadCharts(curveSides(t, "fw-1", "fw-2"))
	if len(charts) != 1 || len(charts[0].Curves) != 2 {
		t.Fatalf("%d charts; want 1 with 2 curves", len(charts))
	}
	c := charts[0]
	if c.Curves[0].Name != "fw-1" || c.Curves[1].Name != "fw-2" {
		t.Errorf("curves named %q and %q, want the labels", c.Curves[0].Name, c.Curves[1].Name)
	}
	if len(c.Summaries) != 2 || !strings.HasPrefix(c.Summaries[1], "fw-2: knee between 2000 and 5000") {
		t.Errorf("summaries %q", c.Summaries)
	}
}

// The other charts do not mix the rates up: latency against size draws
// the closed loop only; the spectra of the curve share one chart, a curve
// per rate; the tables name each rate.
func TestRatesKeptApart(t *testing.T) {
	_, p50, _, _, _ := rawCurve(t)
	sides := curveSides(t)
	lat := LatencySeries(sides)
	if len(lat) != 1 || lat[0].Name != "write_lat" || len(lat[0].Points) != 1 || lat[0].Points[0].P50US != p50[0] {
		t.Errorf("latency series %+v: want write_lat's closed loop alone, p50 %v", lat, p50[0])
	}
	sp, err := Spectra(context.Background(), sides)
	if err != nil {
		t.Fatal(err)
	}
	if len(sp) != 1 || sp[0].Name != "spectrum_write_lat_RC_poll_2B" {
		t.Fatalf("spectra %+v: want one chart", sp)
	}
	var names []string
	for _, c := range sp[0].Curves {
		names = append(names, c.Name)
	}
	if want := []string{"closed loop", "at 2000 ops/s", "at 5000 ops/s", "at 10000 ops/s", "at 20000 ops/s"}; !slices.Equal(names, want) {
		t.Errorf("spectrum curves %q, want %q", names, want)
	}
	if got := Names(sides[0].Points); got[0] != "write_lat RC poll 2 B closed loop" || got[2] != "write_lat RC poll 2 B at 5000 ops/s" {
		t.Errorf("point names %q", got)
	}
	tab := LoadTable(sides[0])
	if len(tab.Rows) != 5 || tab.Rows[0][1] != "closed loop" || tab.Rows[2][1] != "5000" || tab.Rows[2][2] != "5002" ||
		tab.Rows[2][3] != "5191.478" || tab.Rows[2][6] != "10977.279" || tab.Rows[2][7] != "14073.855" || tab.Rows[2][8] != "knee" ||
		tab.Rows[3][8] != "" {
		t.Errorf("load table %q", tab.Rows)
	}
}

// A point run at one rate only is no curve: it is a line of its own in
// the latency chart, named by its rate.
func TestOneRateIsNoCurve(t *testing.T) {
	d, err := ReadFile(curveDoc)
	if err != nil {
		t.Fatal(err)
	}
	d.Results, d.LoadCurves = d.Results[2:3], nil
	sides, err := Groups([]*document.Document{d}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(LoadCharts(sides)); n != 0 {
		t.Errorf("%d load charts from one rate", n)
	}
	if lat := LatencySeries(sides); len(lat) != 1 || lat[0].Name != "write_lat at 5000 ops/s" {
		t.Errorf("latency series %+v: want one named by its rate", lat)
	}
	_, err = Charts(context.Background(), sides, ChartOptions{Kinds: []string{"load"}}, plot.Caption{})
	if err == nil || !strings.Contains(err.Error(), "load: no load curve in the documents: a latency-against-load chart needs a latency point run at two offered rates or more") {
		t.Errorf("load chart asked for without a curve: %v", err)
	}
	charts, err := Charts(context.Background(), curveSides(t), ChartOptions{}, plot.Caption{})
	if err != nil || len(charts["load"]) != 1 || charts["load"][0].Name != "load_write_lat_RC_poll_2B" {
		t.Errorf("charts %v, %v: want a load chart", charts, err)
	}
}

// Bad open-loop figures or load curves are refused with the field named.
func TestBadLoadCurves(t *testing.T) {
	b, err := os.ReadFile(curveDoc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit func(d map[string]any)
		want string
	}{
		{func(d map[string]any) { curves(d)[0]["knee_ops"] = 3000 },
			"load_curves[0] (write_lat 2 B): knee_ops 3000 is not one of rates_ops [2000 5000 10000 20000]"},
		{func(d map[string]any) { curves(d)[0]["rates_ops"] = []int{} }, "load_curves[0] (write_lat 2 B): rates_ops is empty"},
		{func(d map[string]any) { d["load_curves"] = []any{nil} }, "load_curves[0] is null"},
		{func(d map[string]any) { openLoop(d, 1)["rate_ops"] = 0 }, "results[1] (write_lat 2 B).open_loop.rate_ops is 0"},
		{func(d map[string]any) { openLoop(d, 2)["achieved_ops"] = -1 }, "results[2] (write_lat 2 B).open_loop.achieved_ops is -1"},
	} {
		var d map[string]any
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		c.edit(d)
		nb, _ := json.Marshal(d)
		if _, err := Parse(nb); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

func curves(d map[string]any) []map[string]any {
	var out []map[string]any
	for _, c := range d["load_curves"].([]any) {
		out = append(out, c.(map[string]any))
	}
	return out
}

func openLoop(d map[string]any, i int) map[string]any {
	return d["results"].([]any)[i].(map[string]any)["open_loop"].(map[string]any)
}
