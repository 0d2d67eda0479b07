package report

import (
	"bytes"
	"encoding/json"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"strings"
	"testing"
)

// openResult is a write_lat 64-byte open-loop result at rate: ops
// operations over elapsed ns, each with latency lat ns, of which lag ns
// were the schedule's.
func openResult(rate int, ops int, elapsedNS int64, lat, lag int64) *Result {
	p := latParams("write_lat", 64)
	p.Rate = rate
	r := &Result{Params: p, Kind: Latency, Status: StatusOK, Ops: uint64(ops), ElapsedNS: elapsedNS,
		Open: &OpenLoop{RateOPS: rate, Issued: uint64(ops), Service: NewLatencyRecorder(), Lag: NewDelayRecorder()}}
	for range ops {
		r.SamplesNS = append(r.SamplesNS, lat)
		r.Open.Service.Record(lat - lag)
		r.Open.Lag.Record(lag)
	}
	return r
}

func TestLoadCurveKnee(t *testing.T) {
	closed := &Result{Params: latParams("write_lat", 64), Kind: Latency, Status: StatusOK, SamplesNS: []int64{900, 1000}, Ops: 2, ElapsedNS: 4000}
	for _, c := range []struct {
		name   string
		points []*Result
		knee   int
		says   string
	}{
		{"no knee", []*Result{openResult(1000, 100, 1e8, 2000, 0), openResult(2000, 100, 5e7, 3000, 0)}, -1, "no knee up to 2000 ops/s"},
		{"rate not kept", []*Result{openResult(1000, 100, 1e8, 2000, 0), openResult(4000, 100, 5e7, 2500, 0)}, 1,
			"knee between 1000 and 4000 ops/s offered: at 4000, achieved 2000 ops/s, under 95% of the offered 4000"},
		{"p99 doubles", []*Result{openResult(2000, 100, 5e7, 2000, 0), openResult(1000, 100, 1e8, 2000, 0), openResult(3000, 100, 3.34e7, 5000, 3000)}, 2,
			"knee between 2000 and 3000 ops/s offered: at 3000, p99 5.00 us, over 2 times the lowest rate's 2.00 us"},
		{"from the start", []*Result{openResult(1000, 100, 2e8, 2000, 0), openResult(2000, 100, 1e8, 2000, 0)}, 0, "knee at or below 1000 ops/s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			curves := LoadCurves(append([]*Result{closed}, c.points...))
			if len(curves) != 1 {
				t.Fatalf("%d curves", len(curves))
			}
			cv := curves[0]
			if cv.Closed != closed || cv.Knee != c.knee || !strings.Contains(cv.Summary(), c.says) {
				t.Errorf("closed %v, knee %d (%s); want knee %d and %q", cv.Closed != nil, cv.Knee, cv.Summary(), c.knee, c.says)
			}
			for i := 1; i < len(cv.Points); i++ {
				if cv.Points[i].Rate < cv.Points[i-1].Rate {
					t.Errorf("points not in rate order")
				}
			}
		})
	}
	// One rate is no curve; another size is another curve.
	other := openResult(1000, 100, 1e8, 2000, 0)
	other.SizeBytes = 4096
	if n := len(LoadCurves([]*Result{openResult(1000, 100, 1e8, 2000, 0), other})); n != 0 {
		t.Errorf("%d curves from single rates", n)
	}
}

// TestOpenLoopOutputs: the JSON carries the open loop's figures and
// histograms and the curve's knee; the table names each row's rate and
// says where the knee is; a repeated open-loop point merges its runs.
func TestOpenLoopOutputs(t *testing.T) {
	a, b := openResult(1000, 100, 1e8, 2000, 500), openResult(4000, 100, 5e7, 9000, 7000)
	closed := &Result{Params: latParams("write_lat", 64), Kind: Latency, Status: StatusOK, SamplesNS: []int64{900, 1000}, Ops: 2, ElapsedNS: 4000}
	doc := fixtureDocument()
	doc.Results = []*Result{closed, a, Merge([]*Result{b, openResult(4000, 100, 5e7, 9000, 7000)})}
	var js bytes.Buffer
	if err := (jsonEncoder{}).Encode(&js, doc); err != nil {
		t.Fatal(err)
	}
	var got document.Document
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Results[0].OpenLoop != nil {
		t.Error("a closed loop has open-loop figures")
	}
	o := got.Results[1].OpenLoop
	if o == nil || o.RateOPS != 1000 || o.AchievedOPS == nil || *o.AchievedOPS != 1000 || o.Issued != 100 ||
		o.ServiceUS == nil || *o.ServiceUS.P50 != 1.5 || o.LagUS == nil || *o.LagUS.P99 != 0.5 || o.ServiceHistogram == "" || o.LagHistogram == "" {
		t.Errorf("open loop %+v", o)
	}
	if m := got.Results[2].OpenLoop; m == nil || m.Issued != 200 || got.Results[2].Param("rate") != "4000" {
		t.Errorf("merged open loop %+v", m)
	}
	if len(got.LoadCurves) != 1 || got.LoadCurves[0].KneeOPS == nil || *got.LoadCurves[0].KneeOPS != 4000 {
		t.Errorf("load curves %+v", got.LoadCurves)
	}
	var tb bytes.Buffer
	if err := (tableEncoder{}).Encode(&tb, doc); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"offered[ops/s]", "achieved[ops/s]", "         closed |", "|           1000 |            1000 |",
		"open loop: 64 bytes at 4000 ops/s: latency from each operation's due time; service p50 2.000 p99 2.000 us; schedule lag p50 7.000",
		"load: write_lat 64 bytes: knee between 1000 and 4000 ops/s offered"} {
		if !strings.Contains(tb.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, tb.String())
		}
	}
}
