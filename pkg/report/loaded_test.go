package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// loadedResult is a write_lat 64-byte open-loop result at 1000 ops/s
// beside k loaders that streamed gbps together over one second, each
// operation's latency lat ns.
func loadedResult(k int, gbps float64, lat int64) *Result {
	r := openResult(1000, 100, 1e8, lat, 0)
	r.Params.Loaders = k
	r.Bytes = r.Ops * 64
	if k > 0 {
		r.Loaded = &Loaded{Loaders: k, Workload: "write_bw", Ops: uint64(gbps * 1e9 / 8 / 64), ElapsedNS: 1e9}
	}
	return r
}

func TestLoadedCurveKnee(t *testing.T) {
	for _, c := range []struct {
		name   string
		points []*Result
		knee   int
		says   string
	}{
		{"no knee", []*Result{loadedResult(0, 0, 2000), loadedResult(1, 1, 2500), loadedResult(2, 2, 3900)}, -1,
			"no knee up to 2 loaders (p99 within 2 times the 0-loader level's"},
		{"p99 doubles", []*Result{loadedResult(2, 2, 4100), loadedResult(0, 0, 2000), loadedResult(1, 1, 2500)}, 2,
			"knee at 2 loaders (2.000 Gb/s of write_bw beside): p99 4.10 us, over 2 times the 0-loader level's 2.00 us"},
		{"rate not kept", []*Result{loadedResult(0, 0, 2000), func() *Result { r := loadedResult(1, 1, 2000); r.ElapsedNS = 2e8; return r }()}, 1,
			"knee at 1 loader (1.000 Gb/s of write_bw beside): achieved 500 ops/s, under 95% of the offered 1000"},
		{"rate not kept unloaded", []*Result{func() *Result { r := loadedResult(0, 0, 2000); r.ElapsedNS = 2e8; return r }(), loadedResult(1, 1, 2000)}, 0,
			"knee at or below the lowest level, 0 loaders: achieved 500 ops/s, under 95% of the offered 1000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			curves := LoadedCurves(c.points)
			if len(curves) != 1 {
				t.Fatalf("%d curves", len(curves))
			}
			cv := curves[0]
			if cv.Knee != c.knee || !strings.Contains(cv.Summary(), c.says) {
				t.Errorf("knee %d (%s); want knee %d and %q", cv.Knee, cv.Summary(), c.knee, c.says)
			}
			for i, lv := range cv.Levels() {
				if lv != i {
					t.Errorf("levels %v: want them in order", cv.Levels())
				}
			}
			// A loaded sweep is not a curve against offered load.
			if n := len(LoadCurves(c.points)); n != 0 {
				t.Errorf("%d load curves from one rate", n)
			}
		})
	}
	// Without a loaded level it is no loaded curve.
	if n := len(LoadedCurves([]*Result{loadedResult(0, 0, 2000), openResult(1000, 100, 1e8, 2000, 0)})); n != 0 {
		t.Errorf("%d loaded curves without loaders", n)
	}
}

// TestLoadedOutputs: the table names each level with its loaders'
// bandwidth and judges the curve in a note; the JSON has each level's
// loaded block and the curve with its knee.
func TestLoadedOutputs(t *testing.T) {
	doc := fixtureDocument()
	doc.Results = []*Result{loadedResult(0, 0, 2000), loadedResult(1, 1.5, 2500), loadedResult(2, 2.5, 5000)}
	var tbl bytes.Buffer
	if err := (tableEncoder{}).Encode(&tbl, doc); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"loaders_BW[Gb/s]", "| 1 |", "1.50", "2.50",
		"loaded: write_lat 64 bytes at 1000 ops/s: knee at 2 loaders (2.500 Gb/s of write_bw beside)"} {
		if !strings.Contains(strings.Join(strings.Fields(tbl.String()), " "), strings.Join(strings.Fields(w), " ")) {
			t.Errorf("table lacks %q:\n%s", w, tbl.String())
		}
	}
	if strings.Count(tbl.String(), "#bytes") != 1 {
		t.Errorf("the levels are not one table:\n%s", tbl.String())
	}
	var js bytes.Buffer
	if err := (jsonEncoder{}).Encode(&js, doc); err != nil {
		t.Fatal(err)
	}
	got, err := document.Parse(js.Bytes())
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, js.String())
	}
	if got.Results[0].Loaded != nil || got.Results[2].Loaded == nil || got.Results[2].Loaded.Loaders != 2 ||
		got.Results[2].Loaded.Workload != "write_bw" || *got.Results[2].Loaded.BwGbps < 2.49 {
		t.Errorf("loaded blocks: %+v, %+v", got.Results[0].Loaded, got.Results[2].Loaded)
	}
	var loaders int
	if err := json.Unmarshal(got.Results[1].Params["loaders"], &loaders); err != nil || loaders != 1 {
		t.Errorf("params.loaders %s", got.Results[1].Params["loaders"])
	}
	if len(got.LoadedCurves) != 1 || got.LoadedCurves[0].KneeLoaders == nil || *got.LoadedCurves[0].KneeLoaders != 2 ||
		len(got.LoadedCurves[0].Levels) != 3 || len(got.LoadCurves) != 0 {
		t.Errorf("curves: loaded %+v, load %+v", got.LoadedCurves, got.LoadCurves)
	}
}
