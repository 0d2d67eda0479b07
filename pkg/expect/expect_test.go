package expect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// What an expectation reads as: its selectors, metric, operator and
// limit in the metric's unit.
func TestParse(t *testing.T) {
	for text, want := range map[string]Expectation{
		"bw>=90%link":                             {Metric: metricOf(t, "bw"), Op: ">=", Limit: 90, Link: true},
		"lat.p50<=3us":                            {Metric: metricOf(t, "lat.p50"), Op: "<=", Limit: 3},
		"lat.p99.9 < 2ms":                         {Metric: metricOf(t, "lat.p99_9"), Op: "<", Limit: 2000},
		"size=64K qps=4 bw>=20Gb/s":               {Size: 65536, QPs: 4, Metric: metricOf(t, "bw"), Op: ">=", Limit: 20},
		"workload=write_bw bw > 800Mbps":          {Workload: "write_bw", Metric: metricOf(t, "bw"), Op: ">", Limit: 0.8},
		"transport=ud threads=2 msgrate>=500kpps": {Transport: "UD", Threads: 2, Metric: metricOf(t, "msgrate"), Op: ">=", Limit: 0.5},
		"bw>=1000MiB/s":                           {Metric: metricOf(t, "bw"), Op: ">=", Limit: 8.388608},
		"lat.p50<=900ns":                          {Metric: metricOf(t, "lat.p50"), Op: "<=", Limit: 0.9},
		"lat.p99<=5":                              {Metric: metricOf(t, "lat.p99"), Op: "<=", Limit: 5},
	} {
		e, err := Parse(text, "--expect")
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		if e.Workload != want.Workload || e.Transport != want.Transport || e.Size != want.Size || e.QPs != want.QPs ||
			e.Threads != want.Threads || e.Metric.Name != want.Metric.Name || e.Op != want.Op || e.Link != want.Link ||
			e.Limit < want.Limit*(1-1e-12) || e.Limit > want.Limit*(1+1e-12) {
			t.Errorf("%q: %+v, want %+v", text, e, want)
		}
	}
	for text, msg := range map[string]string{
		"":                      "no comparison",
		"bw":                    "no comparison: quote the expectation, as in --expect 'bw>=90%link': a shell reads > and < as redirections",
		"lat":                   "want [workload=NAME]",
		"bw>=":                  "want [workload=NAME]",
		"speed>=10":             `unknown metric "speed"`,
		"bw>=-3":                `value "-3": want a positive number`,
		"bw>=0":                 `value "0": want a positive number`,
		"bw>=10furlongs":        `unit "furlongs" for bw: choose %link, GB/s, Gb/s, Gbit/s, Gbps`,
		"lat.p50<=90%link":      "a share of the link rate is for bw only",
		"bw>=150%link":          "above 100% of the link rate",
		"workload=nosuch bw>=1": `unknown workload "nosuch"`,
		"size=0 bw>=1":          `size "0": must be at least 1 byte`,
		"qps=x bw>=1":           "qps=x: want a whole number from 1",
		"transport=XRC bw>=1":   "transport=XRC: choose RC, UC, UD or TCP",
		"colour=red bw>=1":      `unknown selector "colour"`,
		"bw>=NaN":               "want a positive number",
	} {
		if _, err := Parse(text, "--expect"); err == nil || !strings.Contains(err.Error(), msg) || !strings.HasPrefix(err.Error(), "--expect ") {
			t.Errorf("%q: %v, want %q", text, err, msg)
		}
	}
}

func metricOf(t *testing.T, name string) metric.Metric {
	t.Helper()
	e, err := Parse(name+">=1", "x")
	if err != nil {
		t.Fatal(err)
	}
	return e.Metric
}

// A file of expectations: comments and blank lines skipped, each line's
// place named in its source and in its error; an empty file refused.
func TestParseAll(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "floors.txt")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("# cluster floors\nsize=64K qps=1 bw>=20Gb/s\n\nsize=1M  qps=4 bw>=90%link   # line rate\n")
	es, err := ParseAll([]string{"lat.p50<=3us", "@" + path})
	if err != nil || len(es) != 3 || es[0].Source != "--expect" || es[1].Source != path+":2" || es[2].Source != path+":4" || es[2].Text != "size=1M qps=4 bw>=90%link" {
		t.Fatalf("%+v, %v", es, err)
	}
	write("size=64K bw>=20Gb/s\nbw>=lots\n")
	if _, err := ParseAll([]string{"@" + path}); err == nil || !strings.HasPrefix(err.Error(), path+":2 \"bw>=lots\"") {
		t.Errorf("a bad line: %v", err)
	}
	write("# nothing\n")
	if _, err := ParseAll([]string{"@" + path}); err == nil || !strings.Contains(err.Error(), "no expectation in the file") {
		t.Errorf("an empty file: %v", err)
	}
	if _, err := ParseAll([]string{"@" + filepath.Join(dir, "none")}); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing file: %v", err)
	}
}

// result is a document result with figures and parameters.
func result(t *testing.T, workload string, size int, params string, bw, p50 *float64) *document.Result {
	t.Helper()
	r := &document.Result{Workload: workload, Transport: "RC", SizeBytes: size, Kind: document.KindBandwidth}
	if strings.HasSuffix(workload, "_lat") {
		r.Kind, r.LatencyUS = document.KindLatency, &document.Latency{P50: p50}
	}
	if strings.HasPrefix(workload, "tcp") {
		r.Transport = "TCP"
	}
	r.Status, r.BwGbps = document.StatusOK, bw
	if err := json.Unmarshal([]byte(params), &r.Params); err != nil {
		t.Fatal(err)
	}
	return r
}

func f(v float64) *float64 { return &v }

// The verdicts: only the expectations that select a point judge it; a
// share of the link counts both ways with -b; no figure is a failure;
// a TCP baseline is judged only when named.
func TestCheck(t *testing.T) {
	es, err := ParseAll([]string{"bw>=90%link", "size=64K qps=4 bw>=20", "lat.p50<=3us", "workload=tcp_bw bw>=1"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		r    *document.Result
		want []string // expect and pass of each verdict
	}{
		{result(t, "write_bw", 65536, `{"qps":4,"threads":1}`, f(95), nil), []string{"bw>=90%link true", "size=64K qps=4 bw>=20 true"}},
		{result(t, "write_bw", 65536, `{"qps":1,"threads":1}`, f(80), nil), []string{"bw>=90%link false"}},
		{result(t, "write_bw", 65536, `{"qps":1,"bidir":true}`, f(150), nil), []string{"bw>=90%link false"}},
		{result(t, "write_bw", 65536, `{"qps":1,"bidir":true}`, f(190), nil), []string{"bw>=90%link true"}},
		{result(t, "write_bw", 65536, `{"qps":1}`, nil, nil), []string{"bw>=90%link false"}},
		{result(t, "write_lat", 2, `{"qps":1}`, nil, f(2.5)), []string{"lat.p50<=3us true"}},
		{result(t, "tcp_lat", 2, `{"qps":1}`, nil, f(20)), nil},
		{result(t, "tcp_bw", 65536, `{"qps":1}`, f(5), nil), []string{"workload=tcp_bw bw>=1 true"}},
	}
	for _, c := range cases {
		var got []string
		for _, v := range Check(es, c.r, 100) {
			got = append(got, v.Expect+" "+map[bool]string{true: "true", false: "false"}[v.Pass])
		}
		if strings.Join(got, ", ") != strings.Join(c.want, ", ") {
			t.Errorf("%s %d %s: %v, want %v", c.r.Workload, c.r.SizeBytes, c.r.Param("bidir"), got, c.want)
		}
	}
	v := Check(es[:1], result(t, "write_bw", 65536, `{"bidir":true}`, f(150), nil), 100)[0]
	if v.Limit != 180 || v.Unit != "Gb/s" || *v.Value != 150 || v.Note != "90% of the 100 Gb/s link, both ways" {
		t.Errorf("-b against the link: %+v", v)
	}
	r := result(t, "write_bw", 65536, `{}`, nil, nil)
	r.Status = document.StatusInsufficient
	if v := Check(es[:1], r, 0)[0]; v.Pass || v.Note != "90% of the 0 Gb/s link; the link rate is unknown; the point is insufficient" {
		t.Errorf("no figure, no link: %+v", v)
	}
}

// Before anything runs: an expectation must select a point, and a share
// of the link needs the port's rate.
func TestCheckPlan(t *testing.T) {
	es, err := ParseAll([]string{"lat.p50<=3us"})
	if err != nil {
		t.Fatal(err)
	}
	bw := []Point{{Workload: "write_bw", Transport: "RC", Size: 65536, QPs: 1, Threads: 1}, {Workload: "write_bw", Transport: "RC", Size: 1024, QPs: 1, Threads: 1}}
	if err := CheckPlan(es, bw, 100, "rxe0", 1); err == nil || !strings.Contains(err.Error(), `--expect "lat.p50<=3us" selects no point of this run (write_bw 1 KiB, 64 KiB (bandwidth))`) {
		t.Errorf("no point: %v", err)
	}
	es, _ = ParseAll([]string{"bw>=90%link"})
	if err := CheckPlan(es, bw, 0, "rxe0", 1); err == nil || !strings.Contains(err.Error(), "the link rate of rxe0 port 1 is unknown (/sys/class/infiniband/rxe0/ports/1/rate): give the floor in Gb/s instead") {
		t.Errorf("no link rate: %v", err)
	}
	if err := CheckPlan(es, bw, 10, "rxe0", 1); err != nil {
		t.Errorf("a good plan: %v", err)
	}
}
