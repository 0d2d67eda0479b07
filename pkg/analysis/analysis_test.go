package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"
	"github.com/rdma-bench/rdma-bench/pkg/compare"
)

// fixtures are compare's saved documents and golden outputs, which the
// command's tests use too.
const fixtures = "../../cmd/rdma-bench/testdata/compare/"

// TestBuildComparisonGolden: in-process, the table is the command's, to
// the byte (the documents named as the command's tests name them).
func TestBuildComparisonGolden(t *testing.T) {
	t.Chdir("../../cmd/rdma-bench")
	// One session a side, as the fixtures are: --session-noise 0 vouches
	// that they do not drift, so that the runs decide (sessions:
	// TestCompareSessions in the command's tests).
	noDrift := 0.0
	o := CompareOptions{FailOn: compare.DefaultThresholdSpec, Format: "table", Plot: true, SessionNoisePct: &noDrift}
	c, err := BuildComparison(o, []string{"testdata/compare/base.json", "testdata/compare/slower.json"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/compare/slower.table.golden")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := c.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("table differs from slower.table.golden:\n%s", out.String())
	}
	if code := c.Comparison.Gate.ExitCode(); code != compare.ExitRegression {
		t.Errorf("exit code %d, want %d", code, compare.ExitRegression)
	}
	if len(c.Charts) == 0 || c.Charts[0].Name != "comparison" {
		t.Errorf("charts %v, want the comparison's first", c.Charts)
	}
}

// TestBuildComparisonNotes: points on one side only are listed in the
// table, and handed back for standard error by json.
func TestBuildComparisonNotes(t *testing.T) {
	args := []string{fixtures + "base.json", fixtures + "subset.json"}
	o := CompareOptions{FailOn: compare.DefaultThresholdSpec, Format: "json"}
	c, err := BuildComparison(o, args, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	const note = "send_lat RC poll 64 B: only in the new side: not compared"
	if !slices.Contains(c.StderrNotes, note) || strings.Contains(string(c.Text), "only in the") {
		t.Errorf("json: notes %q", c.StderrNotes)
	}
	o.Format = "table"
	if c, err = BuildComparison(o, args, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if len(c.StderrNotes) != 0 || !strings.Contains(string(c.Text), "\nnot compared:\n") || !strings.Contains(string(c.Text), "  "+note+"\n") {
		t.Errorf("table: notes %q, text %s", c.StderrNotes, c.Text)
	}
}

func TestBadInputMarked(t *testing.T) {
	o := CompareOptions{FailOn: compare.DefaultThresholdSpec, Format: "table"}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"one label", func() error {
			_, err := LoadSides("a", "", nil, &bytes.Buffer{})
			return err
		}, "--base-label and --label go together"},
		{"one side", func() error {
			_, err := BuildComparison(o, []string{fixtures + "base.json"}, &bytes.Buffer{})
			return err
		}, "want BASE and NEW"},
		{"thresholds", func() error {
			o := o
			o.FailOn = "nonsense"
			_, err := BuildComparison(o, nil, &bytes.Buffer{})
			return err
		}, "--fail-on: "},
		{"chart directory", func() error {
			_, err := WriteCharts(file, nil)
			return err
		}, "chart directory " + file + ": not a directory"},
	} {
		err := c.err()
		if err == nil || !inputerr.Is(err) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v (bad input %v), want %q", c.name, err, inputerr.Is(err), c.want)
		}
	}
}

func TestBuildReport(t *testing.T) {
	o := ReportOptions{Title: "t", FailOn: compare.DefaultThresholdSpec, Bases: []string{fixtures + "base.json"}}
	r, err := BuildReport(o, []string{fixtures + "slower.json"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range r.Sections {
		titles = append(titles, s.Title)
	}
	want := []string{"Latency", "Bandwidth and message rate", "Latency spectra", "Comparison against the base"}
	if !slices.Equal(titles, want) {
		t.Errorf("sections %q, want %q", titles, want)
	}
	if cmp := r.Sections[len(r.Sections)-1]; len(cmp.Charts) == 0 || !strings.HasPrefix(cmp.Notes[0], "gate ") {
		t.Errorf("comparison section: %d charts, notes %q", len(cmp.Charts), cmp.Notes)
	}
}

func TestPlotWritesCharts(t *testing.T) {
	charts, err := ChartOptions{}.Plot([]string{fixtures + "base.json"}, []string{"latency"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "plots")
	written, err := WriteCharts(dir, charts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "latency_vs_size.svg"), filepath.Join(dir, "latency_vs_size.png")}
	if !slices.Equal(written, want) {
		t.Errorf("written %v, want %v", written, want)
	}
}
