package compare

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the renderers' output")

// fixtureReport compares a fixed set of series: one of every kind of row.
func fixtureReport(t *testing.T, strict bool) Comparison {
	t.Helper()
	series := []Series{
		{Point: "write_lat RC poll 64 B", Metric: metric.LatP50, Base: spread(2.0, 1, 10), New: spread(2.16, 1, 10)},
		{Point: "write_lat RC poll 64 B", Metric: metric.LatP99, Base: spread(3.0, 1, 10), New: spread(3.12, 1, 10)},
		{Point: "write_lat RC poll 64 B", Metric: metric.CPUPerOp, Base: spread(1.5, 1, 10), New: spread(1.8, 1, 10)},
		{Point: "write_bw RC 65536 B", Metric: metric.BW, Base: spread(9.5, 1, 10), New: spread(10.45, 1, 10)},
		{Point: "write_bw RC 65536 B", Metric: metric.MsgRate, Base: spread(0.018, 1, 10), New: spread(0.018, 1, 10)},
		{Point: "send_lat UD 8 B|inline", Metric: metric.LatP50, Base: spread(1.8, 6, 10), New: spread(1.872, 6, 10),
			NewRuns: RunCounts{Unclean: 3}},
		{Point: "read_bw RC 4096 B", Metric: metric.BW, Base: []float64{9.1, 9.2, 9.3}, New: []float64{8.0, 8.1, 8.2}},
	}
	var rows []Row
	for _, s := range series {
		rows = append(rows, mustCompare(t, s))
	}
	return Comparison{
		Title:     "rdma-bench compare",
		BaseLabel: "base.json (rdma-bench v0.4.0)",
		NewLabel:  "new.json (rdma-bench v0.5.0-rc1)",
		Meta: []MetaDiff{
			{Field: "firmware", Base: "20.31.1014", New: "20.35.2000"},
			{Field: "kernel", Base: "6.1.0-18-amd64", New: "6.1.0-21-amd64"},
			{Field: "rdma-bench", Base: "v0.4.0", New: "v0.5.0-rc1"},
		},
		Gate: Gate(rows, DefaultThresholds(), strict),
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the renderer's output (go test -update rewrites it); got:\n%s", path, got)
	}
}

func render(t *testing.T, f Renderer, r Comparison) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := f(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRenderGolden(t *testing.T) {
	r := fixtureReport(t, false)
	for _, c := range []struct {
		file   string
		format string
		colour bool
	}{
		{"table.golden", "table", false}, {"table_colour.golden", "table", true},
		{"markdown.golden", "markdown", false}, {"json.golden", "json", false}, {"junit.golden", "junit", false},
	} {
		f, err := RendererFor(c.format, c.colour)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, c.file, render(t, f, r))
	}
	if _, err := RendererFor("html", false); err == nil || err.Error() != `unknown format "html" (known: table, markdown, json, junit)` {
		t.Errorf("RendererFor(html): %v", err)
	}
}

// TestFixtureVerdicts pins the fixture's verdicts, so the golden files
// show every kind of row.
func TestFixtureVerdicts(t *testing.T) {
	want := []struct {
		v Verdict
		o Outcome
	}{
		{Slower, OutcomeFail}, {Slower, OutcomePass}, {Slower, OutcomeNotGated}, {Faster, OutcomePass},
		{Same, OutcomePass}, {Inconclusive, OutcomeInconclusive}, {Inconclusive, OutcomeInconclusive},
	}
	for i, g := range fixtureReport(t, false).Gate.Rows {
		if g.Verdict != want[i].v || g.Outcome != want[i].o {
			t.Errorf("row %d (%s %s): %v/%v, want %v/%v", i, g.Point, g.Metric.Name, g.Verdict, g.Outcome, want[i].v, want[i].o)
		}
	}
}

// unescapedPipes counts the column separators of a Markdown table line.
func unescapedPipes(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n
}

func TestMarkdownTables(t *testing.T) {
	out := string(render(t, WriteMarkdown, fixtureReport(t, false)))
	tables, cols := 0, -1
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "|") {
			cols = -1
			continue
		}
		n := unescapedPipes(line)
		if cols < 0 {
			tables++
			cols = n
		} else if n != cols {
			t.Errorf("line has %d separators, its table %d: %s", n, cols, line)
		}
	}
	if tables != 2 {
		t.Errorf("%d tables, want the metadata and the rows", tables)
	}
	// Metadata first, then regressions first.
	meta, fail, same := strings.Index(out, "20.31.1014"), strings.Index(out, "fail (lat.p50"), strings.Index(out, "| same |")
	if !(meta >= 0 && meta < fail && fail < same) {
		t.Errorf("order: metadata at %d, failure at %d, same at %d", meta, fail, same)
	}
}

// The JUnit document as a JUnit consumer reads it.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Name       string `xml:"name,attr"`
		Tests      int    `xml:"tests,attr"`
		Failures   int    `xml:"failures,attr"`
		Errors     int    `xml:"errors,attr"`
		Skipped    int    `xml:"skipped,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func parseJUnit(t *testing.T, r Comparison) junitDoc {
	t.Helper()
	var doc junitDoc
	if err := xml.Unmarshal(render(t, WriteJUnit, r), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d suites", len(doc.Suites))
	}
	return doc
}

func TestJUnitParsesBack(t *testing.T) {
	doc := parseJUnit(t, fixtureReport(t, false))
	s := doc.Suites[0]
	if doc.Tests != 7 || s.Tests != 7 || len(s.Cases) != 7 || doc.Failures != 1 || s.Failures != 1 || s.Skipped != 2 || s.Errors != 0 {
		t.Fatalf("counts: tests %d/%d/%d failures %d/%d skipped %d", doc.Tests, s.Tests, len(s.Cases), doc.Failures, s.Failures, s.Skipped)
	}
	c := s.Cases[0]
	if c.Classname != "write_lat RC poll 64 B" || c.Name != "lat.p50" || c.Failure == nil || c.Failure.Type != "regression" ||
		!strings.Contains(c.Failure.Message, "lat.p50 +8.0% [") || !strings.Contains(c.Failure.Message, "beyond threshold lat.p50>+5%") {
		t.Errorf("failing case: %+v %+v", c, c.Failure)
	}
	if sk := s.Cases[6].Skipped; sk == nil || !strings.HasPrefix(sk.Message, "too few runs (3 base, 3 new)") {
		t.Errorf("3 vs 3 case: %+v", s.Cases[6])
	}
	props := map[string]string{}
	for _, p := range s.Properties {
		props[p.Name] = p.Value
	}
	if props["differs.firmware"] != "20.31.1014 -> 20.35.2000" || props["base"] != "base.json (rdma-bench v0.4.0)" {
		t.Errorf("properties %v", props)
	}
	// Strict: inconclusive rows fail too.
	doc = parseJUnit(t, fixtureReport(t, true))
	if s := doc.Suites[0]; s.Failures != 3 || s.Skipped != 0 || s.Cases[6].Failure == nil || s.Cases[6].Failure.Type != "inconclusive" {
		t.Errorf("strict: failures %d skipped %d", s.Failures, s.Skipped)
	}
}

func TestJSONShape(t *testing.T) {
	var doc struct {
		Gate struct {
			Status   string `json:"status"`
			ExitCode int    `json:"exit_code"`
		} `json:"gate"`
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal(render(t, WriteJSON, fixtureReport(t, false)), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Gate.Status != "fail" || doc.Gate.ExitCode != 1 || len(doc.Rows) != 7 {
		t.Fatalf("gate %+v, %d rows", doc.Gate, len(doc.Rows))
	}
	tooFew := doc.Rows[6]
	if tooFew["change_ci_lo_pct"] != nil || tooFew["change_ci_hi_pct"] != nil || tooFew["verdict"] != "inconclusive" ||
		tooFew["base"].(map[string]any)["ci_lo"] != nil || tooFew["unit"] != "Gb/s" {
		t.Errorf("3 vs 3 row: %v", tooFew)
	}
}
