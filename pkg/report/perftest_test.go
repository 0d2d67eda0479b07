package report

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
