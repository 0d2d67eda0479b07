package report

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

func TestMergeRuns(t *testing.T) {
	a := &Result{Params: latParams("write_lat", 64), Kind: Latency, Status: StatusOK, SamplesNS: []int64{1000, 2000, 3000},
		Ops: 3, Bytes: 192, ElapsedNS: 6000, CPU: CPUPair{Local: &CPUUsage{UserS: 1, SysS: 1, WallS: 2, Cores: 2, SystemPctOfAll: 50}}}
	b := &Result{Params: latParams("write_lat", 64), Kind: Latency, Status: StatusPartial, Reason: "interrupted",
		SamplesNS: []int64{4000, 5000}, Ops: 2, Bytes: 128, ElapsedNS: 9000,
		CPU: CPUPair{Local: &CPUUsage{UserS: 2, SysS: 0, WallS: 2, Cores: 2, SystemPctOfAll: 100}}}
	m := Merge([]*Result{a, b})
	if len(m.Runs) != 2 || m.Runs[0] != a || m.Runs[1] != b {
		t.Fatalf("runs %v", m.Runs)
	}
	if !slices.Equal(m.SamplesNS, []int64{1000, 2000, 3000, 4000, 5000}) || m.Ops != 5 || m.Bytes != 320 || m.ElapsedNS != 15000 {
		t.Errorf("merged samples %v, ops %d, bytes %d, elapsed %d", m.SamplesNS, m.Ops, m.Bytes, m.ElapsedNS)
	}
	if m.Status != StatusPartial || m.Reason != "run 2: interrupted" {
		t.Errorf("status %q, reason %q", m.Status, m.Reason)
	}
	if u := m.CPU.Local; u == nil || u.UserS != 3 || u.WallS != 4 || u.ProcessPctOfCore != 100 || u.SystemPctOfAll != 75 {
		t.Errorf("cpu %+v", m.CPU.Local)
	}
	if l := Summarize(m).Latency; l == nil || !l.Exact || l.P50NS != 3000 || l.MaxNS != 5000 {
		t.Errorf("merged latency %+v", l)
	}
	// A run from a histogram (duration mode) makes the merge a histogram.
	c := &Result{Params: latParams("write_lat", 64), Kind: Latency, Status: StatusOK}
	rec := NewLatencyRecorder()
	rec.RecordChunk([]int64{6000, 7000})
	rec.Fill(c)
	m = Merge([]*Result{a, c})
	if l := Summarize(m).Latency; l == nil || l.Exact || l.Count != 5 || l.MaxNS != 7000 || l.MinNS != 1000 {
		t.Errorf("merged with a histogram: %+v", l)
	}
	if Merge(nil) != nil || Merge([]*Result{a}).Runs[0] != a {
		t.Error("merging none or one run")
	}
}

// TestJSONRunsAndHistograms: a repeated point keeps each run's figures and
// histogram, and the merged histogram, in HdrHistogram's encoding.
func TestJSONRunsAndHistograms(t *testing.T) {
	doc := fixtureDocument()
	r1, r2 := doc.Results[0], *doc.Results[0]
	r2.SamplesNS = spikySamples(500, 2000, 100, 9)
	r2.Ops = 500
	doc.Results = []*Result{Merge([]*Result{r1, &r2}), doc.Results[3]}
	doc.Repeat, doc.Label = 2, "fw-A"
	var got struct {
		Label   string
		Repeat  int
		Results []struct {
			Histogram string
			Runs      []struct {
				Run       int
				Ops       uint64
				Histogram string
				LatencyUS *struct{ P50 float64 } `json:"latency_us"`
				BwGbps    *float64               `json:"bw_gbps"`
			}
		}
	}
	out := encode(t, "json", doc)
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.Label != "fw-A" || got.Repeat != 2 || len(got.Results) != 2 {
		t.Fatalf("label %q repeat %d results %d", got.Label, got.Repeat, len(got.Results))
	}
	lat := got.Results[0]
	if len(lat.Runs) != 2 || lat.Runs[0].Run != 1 || lat.Runs[1].Ops != 500 || lat.Runs[1].LatencyUS == nil {
		t.Fatalf("runs %+v", lat.Runs)
	}
	for i, enc := range []string{lat.Histogram, lat.Runs[0].Histogram, lat.Runs[1].Histogram} {
		h, err := hdrhistogram.Decode([]byte(enc))
		if err != nil {
			t.Fatalf("histogram %d: %v", i, err)
		}
		if want := []int64{1500, 1000, 500}[i]; h.TotalCount() != want {
			t.Errorf("histogram %d holds %d values, want %d", i, h.TotalCount(), want)
		}
	}
	bw := got.Results[1]
	if bw.Histogram != "" || len(bw.Runs) != 1 || bw.Runs[0].BwGbps == nil || bw.Runs[0].Histogram != "" {
		t.Errorf("a single bandwidth run: %+v", bw)
	}
	if !strings.Contains(string(out), `"repeat": 2`) {
		t.Error("no repeat key")
	}
}
