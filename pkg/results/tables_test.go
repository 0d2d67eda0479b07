package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// TestTables: one row per document holding a point, figures as the table
// output prints them, "-" for null.
func TestTables(t *testing.T) {
	s := loadSides(t, "testdata/base")[0]
	var got []string
	for _, r := range LatencyTable(s).Rows {
		got = append(got, strings.Join(r, "|"))
	}
	want := []string{
		"write_lat RC poll 64 B (a.json)|3|1000|3000|1.890|2.100|2.625|3.150|4.200|6.300*|6.300|2.2050|0.2000|1.60|ok",
		"write_lat RC poll 64 B (b.json)|1|1000|1000|2.070|2.300|2.875|3.450|4.600|6.900*|6.900|2.4150|0.2000|1.80|ok",
		"tcp_lat TCP poll 64 B|3|1000|3000|9.900|11.000|13.750|16.500|22.000|33.000*|33.000|11.5500|0.2000|5.00|ok",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("latency rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := LatencyTable(s).Notes; len(n) != 1 || !strings.HasPrefix(n[0], "* ") {
		t.Errorf("latency notes %q, want the thin-percentile note", n)
	}
	bw := BandwidthTable(s).Rows
	if len(bw) != 1 || strings.Join(bw[0], "|") != "write_bw RC poll 64 KiB|3|5000|10.01|9.10|0.0174|0.5000|ok" {
		t.Errorf("bandwidth rows %q", bw)
	}
}

// TestTablesCaveats: a duration-mode point shows its operations, not 0
// iterations; a run the counters call not clean is marked, with the note
// and the counters that moved; a percentile from too few samples is
// marked; no figure rounds to zero.
func TestTablesCaveats(t *testing.T) {
	raw, err := os.ReadFile("testdata/base/a.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc["results"].([]any) {
		m := r.(map[string]any)
		m["iterations"], m["ops"], m["samples"], m["clean"] = 0, 18, 18, false
		m["counters"] = map[string]any{"clean": false, "verdict": "client: not clean: duplicate_request +3 packets"}
		m["msg_rate_mpps"] = 0.000105
		m["expectations"] = []any{map[string]any{"expect": "lat.p50<=1us", "source": "--expect", "metric": "lat.p50", "op": "<=",
			"limit": 1, "unit": "us", "value": 2.1, "pass": false}}
		delete(m, "runs")
	}
	doc["repeat"] = 1 // a document from before the runs key: one run a point
	dir := t.TempDir()
	out, _ := json.Marshal(doc)
	if err := os.WriteFile(filepath.Join(dir, "d.json"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	s := loadSides(t, dir)[0]
	lat := LatencyTable(s)
	row := strings.Join(lat.Rows[0], "|")
	if !strings.HasPrefix(row, "write_lat RC poll 64 B !|1|18|18|") || !strings.Contains(row, "|4.200*|") ||
		!strings.HasSuffix(row, "|ok; counters: client: not clean: duplicate_request +3 packets; expect: lat.p50<=1us failed: 2.100 us, want <= 1.000 us") {
		t.Errorf("latency row %s", row)
	}
	if len(lat.Notes) != 2 || !strings.HasPrefix(lat.Notes[0], "! not clean") || !strings.HasPrefix(lat.Notes[1], "* ") {
		t.Errorf("latency notes %q", lat.Notes)
	}
	for _, r := range doc["results"].([]any) {
		m := r.(map[string]any)
		if l, ok := m["latency_us"].(map[string]any); ok {
			for _, k := range []string{"p50", "p90", "p99", "p99_9", "p99_99", "max"} {
				l[k] = 3999.7
			}
		}
	}
	out, _ = json.Marshal(doc)
	if err := os.WriteFile(filepath.Join(dir, "d.json"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	if n := LatencyTable(loadSides(t, dir)[0]).Notes; len(n) != 4 || !strings.Contains(n[2], "sits at the scheduler's tick") {
		t.Errorf("a median at the tick: notes %q", n)
	}
	bw := strings.Join(BandwidthTable(s).Rows[0], "|")
	if !strings.Contains(bw, "|0.000105|") {
		t.Errorf("bandwidth row %s: want the message rate with 3 significant digits", bw)
	}
}

// TestComparisonTable: the report's comparison table has compare's
// columns and cells: a side too small for a median's interval reads
// "[no CI]" as in compare's table, not as infinite bounds.
func TestComparisonTable(t *testing.T) {
	r, err := compare.Compare(compare.Series{Point: "write_lat RC poll 64 B", Metric: metric.LatP50,
		Base: []float64{2, 2.1, 2.2}, New: []float64{2.3, 2.4, 2.5}}, compare.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	tb := ComparisonTable(compare.Gate([]compare.Row{r}, defaultThresholds(t), false))
	if !slices.Equal(tb.Header, compare.Columns) || len(tb.Rows) != 1 {
		t.Fatalf("header %q, %d rows", tb.Header, len(tb.Rows))
	}
	got := strings.Join(tb.Rows[0], "|")
	want := "write_lat RC poll 64 B|lat.p50 (us)|2.100 [no CI] n=3|2.400 [no CI] n=3|+14.3% [-inf, +inf]|p=0.100|inconclusive (too few runs)|inconclusive (lat.p50>+5%)"
	if got != want {
		t.Errorf("row\n%s\nwant\n%s", got, want)
	}
}

// TestTablesCleanOnly: with CleanOnly a result some of whose runs were not
// clean stands as its clean runs, a row each named by its run, with the
// run's figures; a point with no clean run has no row.
func TestTablesCleanOnly(t *testing.T) {
	docs, err := Load("../../cmd/rdma-bench/testdata/compare/unclean.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Groups(docs, nil, Options{CleanOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	tab := LatencyTable(g[0])
	var rows []string
	for _, r := range tab.Rows {
		if strings.HasPrefix(r[0], "tcp_lat") && strings.Contains(r[0], "64 B") {
			t.Errorf("row %q of a point with no clean run", r[0])
		}
		if strings.HasPrefix(r[0], "write_lat RC poll 64 B") {
			rows = append(rows, r[0])
			if r[1] != "1" {
				t.Errorf("row %q: %s runs, want 1", r[0], r[1])
			}
		}
	}
	if len(rows) != 8 || rows[0] != "write_lat RC poll 64 B (unclean.json run 1)" {
		t.Errorf("write_lat 64 B rows %q: want its 8 clean runs, by run", rows)
	}
}
