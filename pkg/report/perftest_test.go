package report

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// capturedLines reads a testdata file captured from the perftest package,
// without its comment lines.
func capturedLines(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "#") {
			out = append(out, sc.Text())
		}
	}
	return out
}

// The headers and the row formats are perftest's own, byte for byte, as
// captured from the perftest 4.5+0.17 binaries.
func TestPerftestMatchesCaptured(t *testing.T) {
	headers := capturedLines(t, "perftest-4.5-0.17-headers.txt")
	want := []string{perftestBW, perftestBWG, perftestLat, perftestLatDur, perftestLine}
	if len(headers) != len(want) {
		t.Fatalf("captured %d header lines, want %d: %q", len(headers), len(want), headers)
	}
	for i, h := range headers {
		if h+"\n" != want[i] {
			t.Errorf("header %d:\n got %q\nwant %q (perftest's)", i, want[i], h+"\n")
		}
	}
	// A C format becomes ours: integers as %d, every figure pre-formatted
	// to its precision (fixed, as %.Nf does) and printed with %-7s.
	float := regexp.MustCompile(`%-7\.[0-9]l?f`)
	rows := capturedLines(t, "perftest-4.5-0.17-rows.txt")
	wantRows := []string{perftestBWRow, perftestBWRowExt, perftestLatRow, perftestLatDurRow}
	if len(rows) != len(wantRows) {
		t.Fatalf("captured %d row formats, want %d", len(rows), len(wantRows))
	}
	for i, c := range rows {
		g := strings.NewReplacer("%-7lu", "%-7d", "%-10lu", "%-10d", "%lu", "%d").Replace(float.ReplaceAllString(c, "%-7s")) + "\n"
		if g != wantRows[i] {
			t.Errorf("row format %d:\n got %q\nwant %q (from perftest's %q)", i, wantRows[i], g, c)
		}
	}
}

func TestPerftestGolden(t *testing.T) {
	checkGolden(t, "sweep.perftest", encode(t, "perftest", fixtureDocument()))
	doc := fixtureDocument()
	doc.Args = append(doc.Args, "--report_gbits")
	checkGolden(t, "sweep.perftest-gbits", encode(t, "perftest", doc))
}

// A script reading perftest's output by position finds each figure in
// its column: the fixture's 2-byte latency row, field by field.
func TestPerftestColumns(t *testing.T) {
	out := string(encode(t, "perftest", fixtureDocument()))
	s := Summarize(fixtureDocument().Results[0]).Latency
	var row []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 9 && f[0] == "2" {
			row = f
		}
	}
	want := []string{"2", "1000", fixed(s.MinUS(), 2), fixed(s.MaxUS(), 2), fixed(s.P50US(), 2),
		fixed(s.MeanUS(), 2), fixed(s.StdevUS(), 2), fixed(s.P99US(), 2), fixed(s.P99_9US(), 2)}
	if strings.Join(row, " ") != strings.Join(want, " ") {
		t.Errorf("2-byte row %q, want %q (bytes, iterations, min, max, typical = p50, avg, stdev, p99, p99.9)", row, want)
	}
	bw := Summarize(fixtureDocument().Results[3]).Bandwidth
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 5 && f[0] == "65536" {
			mb := fixed(bw.PeakGbps*1e9/8/(1<<20), 2)
			if f[2] != mb || f[3] != fixed(bw.BwMiBps, 2) || f[4] != fixed(bw.MsgRateMpps, 6) {
				t.Errorf("65536-byte row %q: want peak %s, average %s MB/sec (2^20 B/s), %s Mpps", f, mb, fixed(bw.BwMiBps, 2), fixed(bw.MsgRateMpps, 6))
			}
			return
		}
	}
	t.Errorf("no 65536-byte bandwidth row in:\n%s", out)
}

// caveatDocument holds a write_bw sweep whose 65536-byte run was not
// clean, whose 1 MiB run was interrupted after 120 of its 300 iterations
// and whose 4096-byte point the run stopped before, and a write_lat run
// of 4 samples (p99 and p99.9 thin).
func caveatDocument() *Document {
	bw := func(size, ops int) *Result {
		p := latParams("write_bw", size)
		p.Iterations, p.TxDepth, p.CQMod = 300, 128, 100
		return &Result{Params: p, Kind: Bandwidth, Status: StatusOK, Ops: uint64(ops), Bytes: uint64(size * ops),
			ElapsedNS: int64(size*ops) * 8 / 20, PeakBandwidthGbps: 25}
	}
	no := false
	unclean := bw(65536, 300)
	unclean.Counters = &NICCounters{Clean: &no,
		Verdict: "client: not clean: completer_retry_err +62 events, duplicate_request +1820 packets"}
	cut := bw(1048576, 120)
	cut.Status, cut.Reason = StatusPartial, "interrupted: interrupt received"
	unreached := bw(4096, 0)
	unreached.Bytes, unreached.ElapsedNS, unreached.PeakBandwidthGbps = 0, 0, 0
	unreached.Status, unreached.Reason = StatusPartial, "not measured: the run stopped before this point (interrupted)"
	thin := &Result{Params: latParams("write_lat", 2), Kind: Latency, Status: StatusOK,
		SamplesNS: []int64{1000, 1200, 1100, 1500}}
	thin.Iterations, thin.Ops = 4, 4
	return &Document{Tool: Tool{Name: "rdma-bench"}, StartedAt: fixtureTime,
		Args:    []string{"rdma-bench", "run", "write_bw", "-a", "10.0.0.1", "-o", "perftest"},
		Results: []*Result{unclean, unreached, cut, thin}}
}

// TestPerftestCaveats: -o perftest's standard output is perftest's
// columns and nothing else, a cut-short row showing the operations
// measured; every caveat of a row goes to its notes (standard error), in
// the table view's words.
func TestPerftestCaveats(t *testing.T) {
	doc := caveatDocument()
	out := string(encode(t, "perftest", doc))
	want := perftestLine + perftestBW +
		" 65536      300              2980.23            2384.19\t\t   0.038147\n" +
		" 4096       0                -                  -      \t\t   -      \n" +
		" 1048576    120              2980.23            2384.19\t\t   0.002384\n" +
		perftestLine + perftestLine + perftestLat +
		" 2       4          1.00           1.50         1.10     \t       1.20        \t0.19   \t\t1.50    \t\t1.50   \n" +
		perftestLine
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}

	notes := (perftestEncoder{}).Notes(doc)
	wantNotes := []string{
		"not clean: write_bw 65536 bytes: the device's error counters moved during the run (retransmissions, drops): its figures include the recovery",
		"counters: write_bw 65536 bytes: client: not clean: completer_retry_err +62 events, duplicate_request +1820 packets",
		"partial: write_bw 4096 bytes: not measured: the run stopped before this point (interrupted)",
		"#iterations: write_bw 4096 bytes: 0 is the operations measured (every queue pair, thread, direction and run together), not the 300 iterations asked",
		"partial: write_bw 1048576 bytes: interrupted: interrupt received",
		"#iterations: write_bw 1048576 bytes: 120 is the operations measured (every queue pair, thread, direction and run together), not the 300 iterations asked",
		"thin: write_lat 2 bytes: p99, p99.9 of 4 samples: a percentile from fewer samples than it needs (p99: 100, p99.9: 1,000, p99.99: 10,000): it is the largest sample, or near it",
	}
	if strings.Join(notes, "\n") != strings.Join(wantNotes, "\n") {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(wantNotes, "\n"))
	}
	for _, n := range notes {
		if strings.Contains(out, n) {
			t.Errorf("note %q on standard output", n)
		}
	}

	// The same words as the table's: its notes name the row by size
	// only (the table's title names the workload), its marks' footnotes
	// say what not clean and thin mean.
	table := string(encode(t, "table", doc))
	for _, n := range notes {
		kind, rest, _ := strings.Cut(n, ": ")
		row, text, _ := strings.Cut(strings.SplitN(rest, " ", 2)[1], ": ")
		switch kind {
		case "not clean":
			if !strings.Contains(table, display.UncleanMark+" "+kind+": "+text+"\n") {
				t.Errorf("note %q: the table's footnote says otherwise:\n%s", n, table)
			}
		case "thin":
			_, why, _ := strings.Cut(text, ": ")
			if !strings.Contains(table, display.ThinMark+" "+why+"\n") {
				t.Errorf("note %q: the table's footnote says otherwise:\n%s", n, table)
			}
		default:
			if line := kind + ": " + row + ": " + text + "\n"; !strings.Contains(table, line) {
				t.Errorf("note %q: the table has no %q:\n%s", n, line, table)
			}
		}
	}
	if !strings.Contains(table, "| 65536 ! |") || !strings.Contains(table, "1.500*") {
		t.Errorf("the table marks the unclean row and the thin percentiles:\n%s", table)
	}

	// A clean row, a passed validation: no note.
	yes := true
	doc.Results[0].Counters = &NICCounters{Clean: &yes, Verdict: "clean"}
	doc.Results[3].Validation = "passed"
	if n := (perftestEncoder{}).Notes(doc); slices.ContainsFunc(n, func(s string) bool {
		return strings.Contains(s, "65536") || strings.Contains(s, "validation")
	}) {
		t.Errorf("notes of a clean run and a passed validation: %q", n)
	}
}

// TestPerftestDurationNotes: perftest's -D latency table shows no
// percentile, so the note that the percentiles came from a histogram
// (its other figures exact) is not said of it; its other caveats are.
func TestPerftestDurationNotes(t *testing.T) {
	notes := strings.Join((perftestEncoder{}).Notes(fixtureDocument()), "\n")
	if strings.Contains(notes, "write_lat 4096 bytes: percentiles from a histogram") {
		t.Errorf("a note of percentiles for a table without any:\n%s", notes)
	}
	if !strings.Contains(notes, "warning: write_lat 4096 bytes: 3 latency samples out of range") {
		t.Errorf("the -D row's out-of-range warning missing:\n%s", notes)
	}
}
