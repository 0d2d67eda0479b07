package fabric

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\ngot\n%s\nwant\n%s", name, got, want)
	}
}

// handDoc is a 3-host sweep with known figures: latency 2us and bandwidth
// 100 Gb/s everywhere but 0->2 (3us: 50% worse), 1->2 (1.5us: better),
// 1->0 (50 Gb/s: 50% worse), 2->1 (150 Gb/s: better); 2->0 failed.
func handDoc(t *testing.T) *Document {
	t.Helper()
	rounds, err := Schedule(PatternPairs, 3)
	if err != nil {
		t.Fatal(err)
	}
	doc := &Document{
		Tool: "rdma-bench fabric", Version: "v1.0", Launcher: LauncherPMI, World: World{Rank: 0, Size: 3, Launcher: LauncherPMI},
		Rendezvous: MethodPMI, Workloads: []string{"write_lat", "write_bw"}, Params: map[string]string{"size": "64"},
		Schedule: ScheduleInfo{Pattern: PatternPairs, Rounds: len(rounds), Pairs: 6}, PairTimeoutNS: int64(time.Minute),
		StartedAt:  time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		FinishedAt: time.Date(2025, 1, 2, 3, 5, 5, 0, time.UTC),
	}
	for r, h := range []struct {
		host, dev string
		port      int
	}{{"host-a", "mlx5_0", 1}, {"host-b", "mlx5_1", 1}, {"host-c", "mlx5_0", 2}} {
		doc.Members = append(doc.Members, Member{Rank: r, Hostname: h.host, Addr: h.host + ":18515", Device: h.dev, Port: h.port,
			MTUBytes: 4096, Version: "v1.0", Params: doc.Params, ParamsHash: ParamsHash(doc.Params)})
	}
	lat := map[Pair]float64{{0, 2}: 3, {1, 2}: 1.5}
	bw := map[Pair]float64{{1, 0}: 50, {2, 1}: 150}
	for i, round := range rounds {
		for _, p := range round {
			o := PairOutcome{Round: i + 1, Src: p.Src, Dst: p.Dst, Status: StatusOK, ElapsedNS: int64(10 * time.Second)}
			if p == (Pair{2, 0}) {
				o.Status, o.Error = StatusFailed, "measure on rank 2 (host-c): dial tcp 10.0.0.1:18515: connect: connection refused"
				doc.Pairs = append(doc.Pairs, o)
				continue
			}
			l, ok := lat[p]
			if !ok {
				l = 2
			}
			b, ok := bw[p]
			if !ok {
				b = 100
			}
			o.Figures = figuresOf(map[string]float64{"write_lat.p50_us": l, "write_bw.bw_gbps": b}, nil)
			o.Result = json.RawMessage(`{"iterations":1000}`)
			doc.Pairs = append(doc.Pairs, o)
		}
	}
	return doc
}

func TestFindOutliersDirections(t *testing.T) {
	doc := handDoc(t)
	outs, err := FindOutliers(doc, OutlierOptions{ThresholdPct: 20})
	if err != nil {
		t.Fatal(err)
	}
	a := Endpoint{0, "host-a", "mlx5_0", 1}
	b := Endpoint{1, "host-b", "mlx5_1", 1}
	c := Endpoint{2, "host-c", "mlx5_0", 2}
	want := []Outlier{
		{Metric: "write_bw.bw_gbps", Src: b, Dst: a, Value: 50, Median: 100, WorsePct: 50},
		{Metric: "write_lat.p50_us", Src: a, Dst: c, Value: 3, Median: 2, WorsePct: 50},
	}
	if !reflect.DeepEqual(outs, want) {
		t.Errorf("got %+v\nwant %+v", outs, want)
	}
	// Read latency the wrong way round: now the fast pair is the outlier.
	outs, err = FindOutliers(doc, OutlierOptions{ThresholdPct: 20, Metrics: []string{"write_lat.p50_us"},
		Directions: map[string]Direction{"write_lat.p50_us": HigherIsBetter}})
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 || outs[0].Src != b || outs[0].Dst != c || outs[0].WorsePct != 25 {
		t.Errorf("reversed direction: %+v", outs)
	}
	// A threshold above every deviation finds nothing.
	if outs, _ := FindOutliers(doc, OutlierOptions{ThresholdPct: 50}); len(outs) != 0 {
		t.Errorf("threshold 50%%: %+v", outs)
	}
	if ExitStatus(doc, nil) != 1 {
		t.Error("exit status 0 with a failed pair")
	}
}

func TestFindOutliersErrors(t *testing.T) {
	doc := handDoc(t)
	for _, c := range []struct {
		opts OutlierOptions
		want string
	}{
		{OutlierOptions{}, "outlier threshold 0%: want a percentage above 0 such as 20"},
		{OutlierOptions{ThresholdPct: math.NaN()}, "outlier threshold NaN%: want a percentage above 0 such as 20"},
		{OutlierOptions{ThresholdPct: 20, Metrics: []string{"jitter"}},
			`metric "jitter": no known unit suffix: want a time (_ns, _us, _ms, _s: lower is better) or a rate (_gbps, _mbps, _kbps, _bps, _gibps, _mibps, _mpps, _kpps, _pps: higher is better)`},
	} {
		if _, err := FindOutliers(doc, c.opts); err == nil || err.Error() != c.want {
			t.Errorf("%+v: got %v\nwant %q", c.opts, err, c.want)
		}
	}
}

func TestMetricDirection(t *testing.T) {
	for metric, want := range map[string]Direction{
		"write_lat.p50_us": LowerIsBetter, "lat.p99_NS": LowerIsBetter, "setup_s": LowerIsBetter,
		"write_bw.bw_gbps": HigherIsBetter, "msg_rate_mpps": HigherIsBetter, "bw_mibps": HigherIsBetter,
	} {
		if got, err := MetricDirection(metric); err != nil || got != want {
			t.Errorf("%s: %v, %v; want %v", metric, got, err, want)
		}
	}
	for _, bad := range []string{"us", "latency", "bw_gbit", ""} {
		if _, err := MetricDirection(bad); err == nil {
			t.Errorf("%q has a direction", bad)
		}
	}
}

func TestMedian(t *testing.T) {
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("odd: %v", m)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("even: %v", m)
	}
	if m := median(nil); !math.IsNaN(m) {
		t.Errorf("empty: %v", m)
	}
}

func TestReportGolden(t *testing.T) {
	doc := handDoc(t)
	var b bytes.Buffer
	for _, metric := range doc.Metrics() {
		if err := WriteMatrix(&b, doc.Matrix(metric)); err != nil {
			t.Fatal(err)
		}
	}
	golden(t, "matrix.golden", b.Bytes())

	b.Reset()
	outs, err := FindOutliers(doc, OutlierOptions{ThresholdPct: 20})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFindings(&b, doc, outs, 20, 0); err != nil {
		t.Fatal(err)
	}
	golden(t, "findings.golden", b.Bytes())

	b.Reset()
	if err := WriteFindings(&b, doc, outs, 20, 1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "  ... 1 more\n") {
		t.Errorf("limited findings:\n%s", b.String())
	}
}

func TestDocumentJSON(t *testing.T) {
	doc := handDoc(t)
	got, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "document.golden.json", append(got, '\n'))
	var back Document
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	again, err := json.MarshalIndent(&back, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, got) {
		t.Errorf("decoding and encoding again changed the document:\n%s", again)
	}
	if !reflect.DeepEqual(back.Pairs[0].Figures, doc.Pairs[0].Figures) {
		t.Errorf("figures %v, want %v", back.Pairs[0].Figures, doc.Pairs[0].Figures)
	}
}

func TestWriteFindingsClean(t *testing.T) {
	doc := handDoc(t)
	doc.Pairs = doc.Pairs[:1]
	var b bytes.Buffer
	if err := WriteFindings(&b, doc, nil, 20, 0); err != nil {
		t.Fatal(err)
	}
	if want := "no failed pair, no outlier (threshold 20% worse than the median) in 1 pair\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if ExitStatus(doc, nil) != 0 || ExitStatus(nil, nil) != 1 {
		t.Error("exit status")
	}
}
