package fabric

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// halvesDoc is a halves sweep of 4 ranks, saved and read back: round 1
// 0->2 and 1->3 measured, 1->3's write_bw run not clean; round 2 2->0
// measured, 3->1 failed. Every pair has write_lat figures too, which are
// not summed.
func halvesDoc(t *testing.T) *Document {
	t.Helper()
	rounds, err := Schedule(PatternHalves, 4)
	if err != nil {
		t.Fatal(err)
	}
	doc := &Document{
		Envelope: document.Envelope{SchemaVersion: SchemaVersion, Kind: document.KindFabric}, Tool: Tool{Name: "rdma-bench", Version: "v1.0"},
		Launcher: LauncherManual, World: World{Size: 4, Launcher: LauncherManual}, Rendezvous: MethodCoordinator,
		Workloads: []string{"write_lat", "write_bw"},
		Schedule:  ScheduleInfo{Pattern: PatternHalves, Rounds: 2, Pairs: 4}, Status: StatusComplete,
		StartedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), FinishedAt: time.Date(2025, 1, 2, 3, 5, 5, 0, time.UTC),
		ThresholdPct: 20, Suspects: []Suspect{},
	}
	for r := range 4 {
		doc.Members = append(doc.Members, Member{Rank: r, Hostname: []string{"a", "a", "b", "b"}[r], Addr: "h:1"})
	}
	bw := map[Pair][2]float64{{0, 2}: {10.25, 1.5}, {1, 3}: {20.5, 2.25}, {2, 0}: {7, 0.75}}
	for i, round := range rounds {
		for _, p := range round {
			o := PairOutcome{Round: i + 1, Src: p.Src, Dst: p.Dst, Status: StatusOK}
			f, ok := bw[p]
			if !ok {
				o.Status, o.Error = StatusFailed, "measure on rank 3 (b): connection refused"
				doc.Pairs = append(doc.Pairs, o)
				continue
			}
			o.Figures = figuresOf(map[string]float64{"write_lat.p50_us": 2, "write_lat.p99_us": 3,
				"write_bw.bw_gbps": f[0], "write_bw.msg_rate_mpps": f[1]}, nil)
			clean := "true"
			if p == (Pair{1, 3}) {
				clean = "false"
			}
			o.Result = json.RawMessage(`{"kind":"run","results":[{"workload":"write_lat","samples":5000},` +
				`{"workload":"write_bw","counters":{"clean":` + clean + `,"verdict":"not clean: local: packet_seq_err +3 packets"}}]}`)
			doc.Pairs = append(doc.Pairs, o)
		}
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, doc); err != nil {
		t.Fatal(err)
	}
	back, err := Parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return back
}

func TestRoundTotals(t *testing.T) {
	doc := halvesDoc(t)
	got, err := doc.RoundTotals()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d totals, want 2 (a round each, write_bw only): %+v", len(got), got)
	}
	r1, r2 := got[0], got[1]
	if r1.Round != 1 || r1.Workload != "write_bw" || len(r1.Pairs) != 2 || r1.Failed != 0 ||
		r2.Round != 2 || r2.Workload != "write_bw" || len(r2.Pairs) != 2 || r2.Failed != 1 {
		t.Fatalf("totals %+v", got)
	}
	want1 := []MetricSum{{"write_bw.bw_gbps", "Gb/s", 30.75, 2, true}, {"write_bw.msg_rate_mpps", "Mpps", 3.75, 2, true}}
	want2 := []MetricSum{{"write_bw.bw_gbps", "Gb/s", 7, 1, false}, {"write_bw.msg_rate_mpps", "Mpps", 0.75, 1, false}}
	for i, w := range [][]MetricSum{want1, want2} {
		if g := got[i].Sums; len(g) != len(w) || g[0] != w[0] || g[1] != w[1] {
			t.Errorf("round %d: sums %+v, want %+v", i+1, g, w)
		}
	}
	lines, err := RoundTotalLines(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		RoundTotalsHeading,
		"  round 1 (2 pairs at once, 0->2 1->3): write_bw 30.75 Gb/s !, 3.750 Mpps ! in all",
		"  round 2 (2 pairs at once, 2->0 3->1): write_bw 7.000 Gb/s, 0.7500 Mpps in all (sum of 1 of 2 pairs, 1 failed)",
		display.UncleanNote,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	var b bytes.Buffer
	if err := WriteTable(&b, doc, []string{"write_bw.bw_gbps"}); err != nil {
		t.Fatal(err)
	}
	table := b.String()
	at, find := strings.Index(table, want[1]), strings.Index(table, "1 of 4 pairs failed")
	if at < 0 || find < 0 || at < strings.Index(table, "write_bw.bw_gbps: rows measure") || at > find {
		t.Errorf("table without the totals between the matrices and the findings:\n%s", table)
	}
}

// TestRoundTotalsOtherCases: every pair of a round failed; another
// pattern and a probe print no totals, though the rule sums them; the
// incast pattern prints them as halves does.
func TestRoundTotalsOtherCases(t *testing.T) {
	doc := halvesDoc(t)
	for i := range doc.Pairs {
		if doc.Pairs[i].Round == 2 {
			doc.Pairs[i].Status, doc.Pairs[i].Figures = StatusFailed, nil
		}
	}
	lines, err := RoundTotalLines(doc)
	if err != nil {
		t.Fatal(err)
	}
	if want := "  round 2 (2 pairs at once, 2->0 3->1): write_bw no pair measured (2 of 2 failed)"; len(lines) != 4 || lines[2] != want {
		t.Errorf("lines %q, want line 3 %q", lines, want)
	}
	doc.Schedule.Pattern = PatternIncast
	if got, err := RoundTotalLines(doc); err != nil || strings.Join(got, "\n") != strings.Join(lines, "\n") {
		t.Errorf("pattern incast: %q, %v; want %q", got, err, lines)
	}
	doc.Schedule.Pattern = PatternPairs
	if lines, err := RoundTotalLines(doc); lines != nil || err != nil {
		t.Errorf("pattern pairs: %q, %v", lines, err)
	}
	if totals, _ := doc.RoundTotals(); len(totals) != 2 {
		t.Errorf("pattern pairs: %d totals, want 2", len(totals))
	}
	doc.Schedule.Pattern, doc.Probe = PatternHalves, true
	if lines, err := RoundTotalLines(doc); lines != nil || err != nil {
		t.Errorf("probe: %q, %v", lines, err)
	}
}

// TestRoundTotalsByRail: under a rail-aligned schedule a round's rails
// are summed apart, each line naming its rail.
func TestRoundTotalsByRail(t *testing.T) {
	doc := halvesDoc(t)
	doc.Schedule.Rails = []Rail{{"d0", []int{0, 2}}, {"d1", []int{1, 3}}}
	lines, err := RoundTotalLines(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"  round 1, rail d0 (1 pair at once, 0->2): write_bw ", "  round 1, rail d1 (1 pair at once, 1->3): write_bw ",
		"  round 2, rail d0 (1 pair at once, 2->0): write_bw ", "  round 2, rail d1 (1 pair at once, 3->1): write_bw "}
	if len(lines) < 5 {
		t.Fatalf("lines %q", lines)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i+1], w) {
			t.Errorf("line %d %q, want it to start %q", i+2, lines[i+1], w)
		}
	}
}
