package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"
	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/results"
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
	c, err := BuildComparison(context.Background(), o, []string{"testdata/compare/base.json", "testdata/compare/slower.json"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/compare/slower.table.golden")
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Text) != string(want) {
		t.Errorf("table differs from slower.table.golden:\n%s", c.Text)
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
	c, err := BuildComparison(context.Background(), o, args, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	const note = "send_lat RC poll 64 B: only in the new side: not compared"
	if !slices.Contains(c.StderrNotes, note) || strings.Contains(string(c.Text), "only in the") {
		t.Errorf("json: notes %q", c.StderrNotes)
	}
	o.Format = "table"
	if c, err = BuildComparison(context.Background(), o, args, &bytes.Buffer{}); err != nil {
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
			_, err := LoadSides(context.Background(), "a", "", nil, &bytes.Buffer{})
			return err
		}, "--base-label and --label go together"},
		{"one side", func() error {
			_, err := BuildComparison(context.Background(), o, []string{fixtures + "base.json"}, &bytes.Buffer{})
			return err
		}, "want BASE and NEW"},
		{"thresholds", func() error {
			o := o
			o.FailOn = "nonsense"
			_, err := BuildComparison(context.Background(), o, nil, &bytes.Buffer{})
			return err
		}, "--fail-on: "},
		{"chart directory", func() error {
			_, err := WriteCharts(context.Background(), file, nil)
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
	r, err := BuildReport(context.Background(), o, []string{fixtures + "slower.json"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range r.Sections {
		titles = append(titles, s.Title)
	}
	// Both sides drawn, the base (labelled base) then the new (labelled
	// candidate), and their trend.
	want := []string{"Latency", "Bandwidth and message rate", "Latency spectra", "Trend across labels", "Comparison against the base"}
	if !slices.Equal(titles, want) {
		t.Errorf("sections %q, want %q", titles, want)
	}
	if lat := r.Sections[0]; len(lat.Tables) != 2 || lat.Tables[0].Caption != "label base" || lat.Tables[1].Caption != "label candidate" {
		t.Errorf("latency tables: want the base's then the new side's")
	}
	if cmp := r.Sections[len(r.Sections)-1]; len(cmp.Charts) == 0 || !strings.HasPrefix(cmp.Notes[0], "gate ") {
		t.Errorf("comparison section: %d charts, notes %q", len(cmp.Charts), cmp.Notes)
	}
}

// TestBuildReportLabels: --labels orders the documents reported on, not
// the base's, which need not have those labels.
func TestBuildReportLabels(t *testing.T) {
	o := ReportOptions{Title: "t", FailOn: compare.DefaultThresholdSpec, Bases: []string{fixtures + "base.json"},
		Charts: ChartOptions{Labels: "candidate"}}
	r, err := BuildReport(context.Background(), o, []string{fixtures + "slower.json"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if lat := r.Sections[0]; len(lat.Tables) != 2 || lat.Tables[0].Caption != "label base" || lat.Tables[1].Caption != "label candidate" {
		t.Errorf("latency tables: want the base's then the new side's")
	}
	// A label the documents reported on lack is still refused.
	o.Charts.Labels = "base"
	if _, err := BuildReport(context.Background(), o, []string{fixtures + "slower.json"}, &bytes.Buffer{}); err == nil ||
		!strings.Contains(err.Error(), `no document labelled "base"`) {
		t.Errorf("--labels base: %v, want no document labelled base", err)
	}
}

// TestBuildReportBaseOnce: the base's documents are read once, so a
// note on one left out is said once.
func TestBuildReportBaseOnce(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{fixtures + "base.json", "../../cmd/rdma-bench/testdata/views/gate.json"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var notes bytes.Buffer
	o := ReportOptions{Title: "t", FailOn: compare.DefaultThresholdSpec, Bases: []string{dir}}
	if _, err := BuildReport(context.Background(), o, []string{fixtures + "slower.json"}, &notes); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(notes.String(), "gate.json: left out: "); n != 1 {
		t.Errorf("the note on gate.json said %d times, want once: %q", n, notes.String())
	}
}

func TestPlotWritesCharts(t *testing.T) {
	charts, err := ChartOptions{}.Plot(context.Background(), []string{fixtures + "base.json"}, []string{"latency"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "plots")
	written, err := WriteCharts(context.Background(), dir, charts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "latency_vs_size.svg"), filepath.Join(dir, "latency_vs_size.png")}
	if !slices.Equal(written, want) {
		t.Errorf("written %v, want %v", written, want)
	}
}

// TestPipelinesStopOnContext: every pipeline of the offline commands
// returns ctx's cause once ctx has ended, never an error marked as bad
// input (which the command would turn into exit 2), and writes nothing.
func TestPipelinesStopOnContext(t *testing.T) {
	cause := errors.New("terminated received")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	dir := filepath.Join(t.TempDir(), "plots")
	charts, err := ChartOptions{}.Plot(context.Background(), []string{fixtures + "base.json"}, nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	for name, run := range map[string]func() error{
		"compare": func() error {
			_, err := BuildComparison(ctx, CompareOptions{FailOn: compare.DefaultThresholdSpec, Format: "table"},
				[]string{fixtures + "base.json", fixtures + "slower.json"}, &bytes.Buffer{})
			return err
		},
		"compare by label": func() error {
			_, err := BuildComparison(ctx, CompareOptions{FailOn: compare.DefaultThresholdSpec, Format: "json", BaseLabel: "a", Label: "b"},
				[]string{fixtures}, &bytes.Buffer{})
			return err
		},
		"report": func() error {
			_, err := BuildReport(ctx, ReportOptions{FailOn: compare.DefaultThresholdSpec, Bases: []string{fixtures + "base.json"}},
				[]string{fixtures + "slower.json"}, &bytes.Buffer{})
			return err
		},
		"plot": func() error {
			_, err := ChartOptions{}.Plot(ctx, []string{fixtures + "base.json"}, nil, &bytes.Buffer{})
			return err
		},
		"write charts": func() error {
			_, err := WriteCharts(ctx, dir, charts)
			return err
		},
	} {
		if err := run(); !errors.Is(err, cause) || inputerr.Is(err) {
			t.Errorf("%s after cancel: %v (bad input %v), want %v", name, err, inputerr.Is(err), cause)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s was made: %v", dir, err)
	}
}

// TestCleanOnlyPointByPoint: report and plot with --clean-only leave the
// unclean runs out point by point, as compare does, rather than refuse
// the documents: the notes and the report count them in compare's words
// and name the point left with none (unclean.json: 2 of write_lat's 10
// runs and all 10 of tcp_lat's 64 B).
func TestCleanOnlyPointByPoint(t *testing.T) {
	paths := []string{fixtures + "unclean.json"}
	want := []string{compare.LeftOutText(12),
		"tcp_lat TCP poll 64 B: all 10 runs not clean, left out by --clean-only: not drawn"}
	var notes bytes.Buffer
	o := ReportOptions{Title: "t", Charts: ChartOptions{CleanOnly: true}}
	r, err := BuildReport(context.Background(), o, paths, &notes)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !slices.Contains(r.Sections[0].Notes, w) {
			t.Errorf("report's first section: no note %q in %q", w, r.Sections[0].Notes)
		}
		if !strings.Contains(notes.String(), "note: "+w+"\n") {
			t.Errorf("notes %q: want %q", notes.String(), w)
		}
	}
	charts, err := ChartOptions{CleanOnly: true}.Plot(context.Background(), paths, []string{"latency"}, &bytes.Buffer{})
	if err != nil || len(charts) != 1 {
		t.Fatalf("plot --clean-only: %v, %d charts", err, len(charts))
	}
	var svg bytes.Buffer
	if err := charts[0].Chart.WriteSVG(&svg); err != nil || !strings.Contains(svg.String(), "note: "+want[0]) {
		t.Errorf("the chart's caption does not say %q (%v)", want[0], err)
	}
	// Without it, nothing is left out and nothing said.
	notes.Reset()
	if _, err := BuildReport(context.Background(), ReportOptions{Title: "t"}, paths, &notes); err != nil || strings.Contains(notes.String(), "left out") {
		t.Errorf("without --clean-only: %v, notes %q", err, notes.String())
	}
}

// TestBothSides: the base's groups come first; a group without a label
// is named by its side, and a label both sides have is prefixed with it;
// a name so made that another group has already is numbered.
func TestBothSides(t *testing.T) {
	g := func(l string) *results.Group { return &results.Group{Label: l} }
	for _, c := range []struct {
		base, new []*results.Group
		want      []string
	}{
		{[]*results.Group{g("fw-A"), g("")}, []*results.Group{g("fw-A"), g("fw-B"), g("")},
			[]string{"base fw-A", "base", "new fw-A", "fw-B", "new"}},
		// The names made up are other groups' labels.
		{[]*results.Group{g("new"), g("fw-A"), g("")}, []*results.Group{g("base"), g("fw-A"), g("base fw-A"), g("")},
			[]string{"new", "base fw-A (2)", "base (2)", "base", "new fw-A", "base fw-A", "new (2)"}},
	} {
		var got []string
		for _, s := range bothSides(c.base, c.new) {
			got = append(got, s.Label)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("labels %q, want %q", got, c.want)
		}
	}
}

// TestBuildReportUnlabelled: a report of documents without a label
// against a base labelled "new" draws both sides apart.
func TestBuildReportUnlabelled(t *testing.T) {
	dir := t.TempDir()
	relabel := func(from, label string) string {
		b, err := os.ReadFile(fixtures + from)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if label == "" {
			delete(doc, "label")
		} else {
			doc["label"] = label
		}
		if b, err = json.Marshal(doc); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, label+from)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	o := ReportOptions{Title: "t", FailOn: compare.DefaultThresholdSpec, Bases: []string{relabel("base.json", "new")}}
	r, err := BuildReport(context.Background(), o, []string{relabel("slower.json", "")}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if lat := r.Sections[0]; len(lat.Tables) != 2 || lat.Tables[0].Caption != "label new" || lat.Tables[1].Caption != "label new (2)" {
		t.Errorf("latency tables: want the base's then the new side's")
	}
}
