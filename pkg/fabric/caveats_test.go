package fabric

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// uncleanVerdict is what the counters of every write_bw run of caveatDoc
// saw.
const uncleanVerdict = "not clean: local: packet_seq_err +3 packets"

// caveatDoc is the sweep of issue 37: 3 ranks, every pair measured, no
// suspect; every write_bw run not clean (its counters moved), every
// write_lat run of 50 samples (its p99 thin, its p50 not), but 0->1's
// write_lat run is of 5,000 samples and its counters unread.
func caveatDoc(t *testing.T) *Document {
	t.Helper()
	doc := handDoc(t)
	doc.Suspects, doc.Recheck = nil, nil
	for i := range doc.Pairs {
		p := &doc.Pairs[i]
		p.Status, p.Error = StatusOK, ""
		p.Figures = figuresOf(map[string]float64{"write_lat.p50_us": 2, "write_lat.p99_us": 3, "write_bw.bw_gbps": 100}, nil)
		latSamples, latCounters := 50, `"counters":{"clean":true,"verdict":"clean"}`
		if p.Src == 0 && p.Dst == 1 {
			latSamples, latCounters = 5000, `"counters":null`
		}
		p.Result = json.RawMessage(fmt.Sprintf(`{"kind":"run","results":[`+
			`{"workload":"write_lat","status":"ok","samples":%d,%s},`+
			`{"workload":"write_bw","status":"ok","clean":false,"samples":0,"counters":{"clean":false,"verdict":%q}}]}`,
			latSamples, latCounters, uncleanVerdict))
	}
	return doc
}

// matrixText is metric's matrix as the table writes it.
func matrixText(t *testing.T, doc *Document, metric string) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteMatrix(&b, doc.Matrix(metric)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestMatrixMarksCaveats(t *testing.T) {
	doc := caveatDoc(t)
	bw := matrixText(t, doc, "write_bw.bw_gbps")
	if n := strings.Count(bw, "100.0 "+display.UncleanMark+" |"); n != 6 {
		t.Errorf("write_bw: %d cells marked %q, want 6:\n%s", n, display.UncleanMark, bw)
	}
	if !strings.HasSuffix(bw, "+\n"+display.UncleanNote+"\n") {
		t.Errorf("write_bw: want the table's footnote %q below it:\n%s", display.UncleanNote, bw)
	}
	p99 := matrixText(t, doc, "write_lat.p99_us")
	if n := strings.Count(p99, "3.000"+display.ThinMark+" |"); n != 5 {
		t.Errorf("write_lat p99: %d cells marked thin, want 5 (0->1 has 5,000 samples):\n%s", n, p99)
	}
	if !strings.Contains(p99, "| 0 host-a |      - |  3.000 | 3.000* |") {
		t.Errorf("write_lat p99: row 0 should be unmarked at 0->1, thin at 0->2:\n%s", p99)
	}
	if !strings.HasSuffix(p99, "+\n"+display.ThinNote+"\n") || strings.Contains(p99, display.UncleanNote) {
		t.Errorf("write_lat p99: want the thin footnote alone:\n%s", p99)
	}
	if p50 := matrixText(t, doc, "write_lat.p50_us"); strings.ContainsAny(p50, display.ThinMark+display.UncleanMark) {
		t.Errorf("write_lat p50 of 50 samples, clean: want no mark:\n%s", p50)
	}
	if m := doc.Matrix("write_bw.bw_gbps"); m.Caveat(1, 2) != CaveatUnclean || m.Caveat(1, 1) != 0 {
		t.Errorf("caveat bits: 1->2 %b, 1->1 %b", m.Caveat(1, 2), m.Caveat(1, 1))
	}
}

func TestFindingsCountCaveats(t *testing.T) {
	doc := caveatDoc(t)
	var b bytes.Buffer
	if err := WriteFindings(&b, doc, 0); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"6 of 6 write_bw pairs " + display.UncleanNote + "\n",
		"  rank 1 (host-b mlx5_1 port 1) -> rank 2 (host-c mlx5_0 port 2): counters: " + uncleanVerdict + "\n",
		"5 of 6 write_lat pairs " + display.ThinNote + "\n",
		"  rank 1 (host-b mlx5_1 port 1) -> rank 0 (host-a mlx5_0 port 1): p99 of 50 samples\n",
		"no failed pair, no outlier (threshold 20% worse than the median) in 6 pairs; 6 of 6 write_bw pairs not clean, 5 of 6 write_lat pairs thin\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("findings lack %q:\n%s", want, out)
		}
	}
	if got := strings.Count(out, "counters: "+uncleanVerdict); got != 6 {
		t.Errorf("%d pairs listed unclean, want 6:\n%s", got, out)
	}
	b.Reset()
	if err := WriteFindings(&b, doc, 2); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), "counters: "+uncleanVerdict); got != 2 || !strings.Contains(b.String(), "  ... 4 more\n") {
		t.Errorf("limited to 2: %d listed:\n%s", got, b.String())
	}
	if s := Summary(doc); !strings.HasSuffix(s, "; 6 of 6 write_bw pairs not clean, 5 of 6 write_lat pairs thin") {
		t.Errorf("summary %q: want the caveats counted", s)
	}
}

// TestPairLogKeepsCaveats: rank 0 reads the pairs back from its log
// without their results; their caveats come back with the figures.
func TestPairLogKeepsCaveats(t *testing.T) {
	want := caveatDoc(t)
	l, err := NewPairLog(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Remove()
	for i := range want.Pairs {
		p := want.Pairs[i] // a copy: its caveats not yet read
		p.caveats, p.caveatsRead = nil, false
		if err := l.Add(&p); err != nil {
			t.Fatal(err)
		}
	}
	got := *want
	got.Pairs, got.log = nil, l
	for _, metric := range want.Metrics() {
		if a, b := matrixText(t, &got, metric), matrixText(t, want, metric); a != b {
			t.Errorf("%s from the log:\n%s\nwant\n%s", metric, a, b)
		}
	}
	if a, b := Summary(&got), Summary(want); a != b {
		t.Errorf("summary from the log %q, want %q", a, b)
	}
}

// TestCaveatsOfOtherResults: a result that is no run document, or none,
// has no caveat; its cells are unmarked.
func TestCaveatsOfOtherResults(t *testing.T) {
	for _, raw := range []string{``, `{"iterations":1000}`, `[1,2]`, `{"results":[{"workload":"write_bw","clean":true}]}`} {
		if c := resultCaveats(json.RawMessage(raw)); c != nil {
			t.Errorf("caveats of %q: %+v, want none", raw, c)
		}
	}
}
