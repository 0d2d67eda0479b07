package fabric

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
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
// 100 Gb/s everywhere but 0->2 (3us: 50% worse), 1->0 (2.5us: 25% worse),
// 1->2 (1.5us: better), 1->0 (50 Gb/s: 50% worse), 2->1 (150 Gb/s:
// better); 2->0 failed. Its suspects are re-measured by hand (see
// recheckByHand).
func handDoc(t *testing.T) *Document {
	t.Helper()
	rounds, err := Schedule(PatternPairs, 3)
	if err != nil {
		t.Fatal(err)
	}
	doc := &Document{
		Envelope: document.Envelope{SchemaVersion: SchemaVersion, Kind: document.KindFabric}, Tool: Tool{Name: "rdma-bench", Version: "v1.0"}, Launcher: LauncherPMI, World: World{Rank: 0, Size: 3, Launcher: LauncherPMI},
		Rendezvous: MethodPMI, Workloads: []string{"write_lat", "write_bw"}, Params: map[string]string{"size": "64"},
		Schedule: ScheduleInfo{Pattern: PatternPairs, Rounds: len(rounds), Pairs: 6}, PairTimeoutNS: int64(time.Minute),
		StartedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), Status: StatusComplete,
		FinishedAt: time.Date(2025, 1, 2, 3, 5, 5, 0, time.UTC),
	}
	for r, h := range []struct {
		host, dev string
		port      int
	}{{"host-a", "mlx5_0", 1}, {"host-b", "mlx5_1", 1}, {"host-c", "mlx5_0", 2}} {
		doc.Members = append(doc.Members, Member{Rank: r, Hostname: h.host, Addr: h.host + ":18515", Device: h.dev, Port: h.port,
			MTUBytes: 4096, Version: "v1.0", Params: doc.Params, ParamsHash: ParamsHash(doc.Params)})
	}
	doc.Members[1].DeviceWhy = "named by -d"
	lat := map[Pair]float64{{0, 2}: 3, {1, 0}: 2.5, {1, 2}: 1.5}
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
	recheckByHand(t, doc)
	return doc
}

// recheckByHand gives handDoc's suspects a re-measurement of each verdict:
// bandwidth 1->0 is half its reference's, 12 times: an outlier; latency
// 0->2 swings either way 8 times, then a pair fails: undecided; latency
// 1->0 is its reference's, 12 times: cleared.
func recheckByHand(t *testing.T, doc *Document) {
	t.Helper()
	doc.ThresholdPct = 20
	var err error
	if doc.Suspects, err = FindSuspects(doc, OutlierOptions{ThresholdPct: 20}); err != nil || len(doc.Suspects) != 3 {
		t.Fatalf("suspects %+v, %v", doc.Suspects, err)
	}
	o := RecheckOptions{}.resolved()
	plan := o.plan(len(doc.Suspects))
	doc.Recheck = &RecheckSettings{Alpha: o.Alpha, LookEvery: o.LookEvery, MaxPairs: o.MaxPairs, Looks: plan.Looks, Confidence: plan.Confidence()}
	for i := range doc.Suspects {
		s := &doc.Suspects[i]
		r := &Recheck{LoPct: compare.LoBound(math.Inf(-1)), HiPct: compare.HiBound(math.Inf(1))}
		s.Recheck = r
		th := compare.Threshold{Metric: metric.Metric{Name: s.Metric}, LimitPct: 20}
		n, ratio := 12, func(i int) float64 { return 1 + 0.01*float64(i%3) }
		switch {
		case s.Metric == "write_bw.bw_gbps":
			th.Metric.HigherIsBetter = true
			ratio = func(i int) float64 { return 0.5 + 0.01*float64(i%3) }
		case s.Src.Rank == 0:
			n, ratio = 8, func(i int) float64 { return []float64{0.6, 1.7}[i%2] }
			r.Failed, r.Error = &Pair{Src: 0, Dst: 2}, "0->2: measure on rank 0 (host-a): cable cut"
		}
		for i := range n {
			r.Reference = append(r.Reference, s.Reference.Value)
			r.Suspect = append(r.Suspect, s.Reference.Value*ratio(i))
			r.SuspectFirst = append(r.SuspectFirst, i%2 == 0)
			r.Pairs++
			if r.Pairs%o.LookEvery == 0 || r.Pairs == n {
				r.look(th, plan.Confidence())
			}
		}
	}
}

func TestFindSuspectsDirections(t *testing.T) {
	doc := handDoc(t)
	outs, err := FindSuspects(doc, OutlierOptions{ThresholdPct: 20})
	if err != nil {
		t.Fatal(err)
	}
	a := Endpoint{0, "host-a", "mlx5_0", 1}
	b := Endpoint{1, "host-b", "mlx5_1", 1}
	c := Endpoint{2, "host-c", "mlx5_0", 2}
	// The reference is the first pair in schedule order at the median.
	latRef := Reference{Src: a, Dst: b, Value: 2}
	want := []Suspect{
		{Metric: "write_bw.bw_gbps", Src: b, Dst: a, Value: 50, Median: 100, WorsePct: 50, Reference: Reference{Src: b, Dst: c, Value: 100}},
		{Metric: "write_lat.p50_us", Src: a, Dst: c, Value: 3, Median: 2, WorsePct: 50, Reference: latRef},
		{Metric: "write_lat.p50_us", Src: b, Dst: a, Value: 2.5, Median: 2, WorsePct: 25, Reference: latRef},
	}
	if !reflect.DeepEqual(outs, want) {
		t.Errorf("got %+v\nwant %+v", outs, want)
	}
	// Read latency the wrong way round: now the fast pair is the suspect.
	outs, err = FindSuspects(doc, OutlierOptions{ThresholdPct: 20, Metrics: []string{"write_lat.p50_us"},
		Directions: map[string]Direction{"write_lat.p50_us": HigherIsBetter}})
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 || outs[0].Src != b || outs[0].Dst != c || outs[0].WorsePct != 25 {
		t.Errorf("reversed direction: %+v", outs)
	}
	// A threshold above every deviation finds nothing; zero is the default.
	if outs, _ := FindSuspects(doc, OutlierOptions{ThresholdPct: 50}); len(outs) != 0 {
		t.Errorf("threshold 50%%: %+v", outs)
	}
	if outs, _ := FindSuspects(doc, OutlierOptions{}); len(outs) != 3 {
		t.Errorf("default threshold: %+v", outs)
	}
	if ExitStatus(doc) != 1 {
		t.Error("exit status 0 with a failed pair")
	}
}

func TestFindSuspectsErrors(t *testing.T) {
	doc := handDoc(t)
	for _, c := range []struct {
		opts OutlierOptions
		want string
	}{
		{OutlierOptions{ThresholdPct: -1}, "outlier threshold -1%: want a percentage above 0 such as 20"},
		{OutlierOptions{ThresholdPct: math.NaN()}, "outlier threshold NaN%: want a percentage above 0 such as 20"},
		{OutlierOptions{ThresholdPct: 20, Metrics: []string{"jitter"}},
			`metric "jitter": not a figure of rdma-bench: want WORKLOAD.KEY with KEY one of p50_us, p99_us, p99_9_us, bw_gbps, msg_rate_mpps, cpu_us_per_op, cpu_s_per_gb`},
	} {
		if _, err := FindSuspects(doc, c.opts); err == nil || err.Error() != c.want {
			t.Errorf("%+v: got %v\nwant %q", c.opts, err, c.want)
		}
	}
}

func TestMetricDirection(t *testing.T) {
	for metric, want := range map[string]Direction{
		"write_lat.p50_us": LowerIsBetter, "send_lat.p99_us": LowerIsBetter, "write_bw.cpu_us_per_op": LowerIsBetter,
		"write_bw.bw_gbps": HigherIsBetter, "msg_rate_mpps": HigherIsBetter, "read_bw.msg_rate_mpps": HigherIsBetter,
	} {
		if got, err := MetricDirection(metric); err != nil || got != want {
			t.Errorf("%s: %v, %v; want %v", metric, got, err, want)
		}
	}
	for _, bad := range []string{"us", "latency", "bw_gbit", "bw_mibps", "lat.p99_NS", ""} {
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
	if err := WriteFindings(&b, doc, 0); err != nil {
		t.Fatal(err)
	}
	golden(t, "findings.golden", b.Bytes())

	b.Reset()
	if err := WriteFindings(&b, doc, 1); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "  ... 2 more\n") {
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
	doc.Pairs, doc.Suspects, doc.Recheck = doc.Pairs[:1], nil, nil
	var b bytes.Buffer
	if err := WriteFindings(&b, doc, 0); err != nil {
		t.Fatal(err)
	}
	if want := "no failed pair, no outlier (threshold 20% worse than the median) in 1 pair\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if ExitStatus(doc) != 0 || ExitStatus(nil) != 1 {
		t.Error("exit status")
	}
}

// TestSuspectsReferenceHalfSlow: 6 of 12 pairs were about 8000 us in the
// sweep (the soft-RoCE VM's two pairs a round), 5 are 12 us and one 18
// us. The median of all, 4009 us, makes the 6 slow pairs suspects;
// their reference is a 12 us pair (the median of the clean ones), not the
// 18 us one nearest 4009 us.
func TestSuspectsReferenceHalfSlow(t *testing.T) {
	rounds, err := Schedule(PatternPairs, 4)
	if err != nil {
		t.Fatal(err)
	}
	doc := &Document{}
	for r := range 4 {
		doc.Members = append(doc.Members, Member{Rank: r, Hostname: fmt.Sprintf("host-%d", r)})
	}
	slow := map[Pair]bool{{0, 2}: true, {0, 3}: true, {1, 0}: true, {2, 1}: true, {2, 3}: true, {3, 1}: true}
	for i, round := range rounds {
		for _, p := range round {
			v := 12.0
			switch {
			case slow[p]:
				v = 8000 + float64(p.Src)
			case p == Pair{1, 2}:
				v = 18
			}
			doc.Pairs = append(doc.Pairs, PairOutcome{Round: i + 1, Src: p.Src, Dst: p.Dst, Status: StatusOK,
				Figures: figuresOf(map[string]float64{"write_lat.p50_us": v}, nil)})
		}
	}
	sus, err := FindSuspects(doc, OutlierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sus) != 6 {
		t.Fatalf("%d suspects, want the 6 slow pairs: %+v", len(sus), sus)
	}
	for _, s := range sus {
		if !slow[Pair{s.Src.Rank, s.Dst.Rank}] || s.Reference.Value != 12 || s.Median != (18+8000)/2 {
			t.Errorf("suspect %d->%d (median %v) beside %d->%d at %v", s.Src.Rank, s.Dst.Rank, s.Median,
				s.Reference.Src.Rank, s.Reference.Dst.Rank, s.Reference.Value)
		}
	}
}
