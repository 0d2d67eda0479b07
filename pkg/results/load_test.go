package results

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

func paths(docs []*document.Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, filepath.ToSlash(d.Path))
	}
	return out
}

// TestLoadFindsDocuments: a directory gives its *.json files without
// dot-files, temporary files of an interrupted save or other files; a glob
// the same; a file named twice is read once.
func TestLoadFindsDocuments(t *testing.T) {
	want := []string{"testdata/base/a.json", "testdata/base/b.json"}
	for _, args := range [][]string{
		{"testdata/base"},
		{"testdata/base/*.json"},
		{"testdata/base/a.json", "testdata/base/b.json", "testdata/base/a.json"},
		{"testdata/base/a.json", "testdata/base"},
	} {
		docs, err := Load(args...)
		if err != nil {
			t.Fatalf("Load(%q): %v", args, err)
		}
		if got := paths(docs); !slices.Equal(got, want) {
			t.Errorf("Load(%q) = %q, want %q", args, got, want)
		}
	}
}

// TestLoadRefusals: every bad input names the file and the field, and says
// what is allowed.
func TestLoadRefusals(t *testing.T) {
	cases := []struct{ path, want string }{
		{"testdata/notrdma.json", `testdata/notrdma.json: not an rdma-bench document: tool.name is "fio", want "rdma-bench"`},
		{"testdata/array.json", `testdata/array.json: not an rdma-bench document: the JSON is an array, want an object with tool.name "rdma-bench"`},
		{"testdata/schema3.json", "testdata/schema3.json: schema_version 3 is newer than this rdma-bench reads (2): read it with the rdma-bench that wrote it, or a newer one"},
		{"testdata/schema1.json", "testdata/schema1.json: schema_version 1 is older than this rdma-bench reads (2): its CPU costs and statuses meant other things; measure again"},
		{"testdata/empty.json", "testdata/empty.json: no results: the document holds no measured point (results is empty)"},
		{"testdata/negative.json", "testdata/negative.json: results[1] (write_bw 64 KiB).runs[1].bw_gbps is -1: want a positive number, or null when not measured"},
		{"testdata/zero.json", "testdata/zero.json: results[0] (write_lat 64 B).runs[2].latency_us.p50 is 0: want a positive number, or null when not measured"},
		{"testdata/nan.json", "testdata/nan.json: not JSON: invalid character 'N' looking for beginning of value (line 140, column 20): NaN is not a JSON number; a figure is a positive number, or null when not measured"},
		{"testdata/string-figure.json", "testdata/string-figure.json: results.latency_us.p99: found a string, want a number or null"},
		{"testdata/base/.hidden.json", "testdata/base/.hidden.json: not JSON: invalid character 'o' in literal null (expecting 'u') (line 1, column 2)"},
		{"testdata/nosuch.json", "testdata/nosuch.json: no such file or directory"},
		{"testdata/nosuch-*.json", `pattern "testdata/nosuch-*.json" matches no file`},
		{"testdata/new/c.json.tmp", "testdata/new/c.json.tmp: no such file or directory"},
	}
	for _, c := range cases {
		_, err := Load(c.path)
		if err == nil || err.Error() != c.want {
			t.Errorf("Load(%s):\n got  %v\n want %s", c.path, err, c.want)
		}
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.HasSuffix(err.Error(), "holds no *.json document") {
		t.Errorf("empty directory: %v", err)
	}
	if _, err := Load(); err == nil {
		t.Error("Load(): no error")
	}
}

// TestOldDocument: a document from before the runs key is read as one run
// per point, its figures those of the result; absent keys read as empty.
func TestOldDocument(t *testing.T) {
	docs, err := Load("testdata/old.json")
	if err != nil {
		t.Fatal(err)
	}
	d := docs[0]
	if d.Label != "" || d.Repeat != 0 || d.Host.RDMACore != "" || d.Device.Driver != "" {
		t.Errorf("absent keys: label %q repeat %d rdma_core %q driver %q", d.Label, d.Repeat, d.Host.RDMACore, d.Device.Driver)
	}
	pts, err := Pool(docs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2 {
		t.Fatalf("%d points, want 2", len(pts))
	}
	for _, p := range pts {
		if len(p.Runs) != 1 || p.Results[0].RunsRecorded {
			t.Errorf("%s: %d runs (recorded %v), want one made of the result", Describe(p.Key, nil), len(p.Runs), p.Results[0].RunsRecorded)
		}
	}
	if v, _ := pts[0].Values("lat.p50"); !slices.Equal(v, []float64{2.0}) {
		t.Errorf("write_lat lat.p50 = %v, want [2]", v)
	}
	if v, _ := pts[1].Values("bw"); !slices.Equal(v, []float64{9.0}) {
		t.Errorf("write_bw bw = %v, want [9]", v)
	}
}

// TestPartialAndUnclean: a partial run is refused by default with the
// file named, and accepted when allowed; an unclean run is counted, left
// out with CleanOnly, point by point, and the result then stands as its
// clean run, whose figures the charts draw; a run that does not say is
// not unclean.
func TestPartialAndUnclean(t *testing.T) {
	docs, err := Load("testdata/partial.json", "testdata/unclean.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Pool(docs[:1], Options{})
	want := "testdata/partial.json: results[0] (write_lat RC poll 64 B): run 2 is partial (interrupted: the peer stopped answering): a run cut short is not compared; allow it with --allow-partial"
	if err == nil || err.Error() != want {
		t.Errorf("partial:\n got  %v\n want %s", err, want)
	}
	if pts, err := Pool(docs[:1], Options{AllowPartial: true}); err != nil || len(pts[0].Runs) != 2 {
		t.Errorf("partial allowed: %v", err)
	}
	// Unclean runs are counted: pooled by default, left out with
	// CleanOnly, point by point.
	for _, c := range []struct {
		opt                    Options
		runs, unclean, dropped int
	}{{Options{}, 2, 1, 0}, {Options{CleanOnly: true}, 1, 0, 1}} {
		pts, err := Pool(docs[1:], c.opt)
		if err != nil {
			t.Fatalf("%+v: %v", c.opt, err)
		}
		if p := pts[0]; len(p.Runs) != c.runs || p.Unclean != c.unclean || p.Dropped != c.dropped || p.Runs[0].Run.Run != 1 {
			t.Errorf("%+v: %d runs, %d unclean, %d dropped; want %d, %d, %d", c.opt, len(p.Runs), p.Unclean, p.Dropped, c.runs, c.unclean, c.dropped)
		}
	}
	// The result's p50 (2.1 µs) merges both runs; left with its clean
	// run, the point is run 1's (2.0 µs).
	for _, c := range []struct {
		clean bool
		p50   float64
	}{{false, 2.1}, {true, 2.0}} {
		pts, err := Pool(docs[1:], Options{CleanOnly: c.clean})
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := pts[0].Figure("lat.p50"); !ok || v != c.p50 {
			t.Errorf("clean only %v: p50 %v (%v), want %v", c.clean, v, ok, c.p50)
		}
	}
}

// TestLeftOut: --clean-only's runs left out are counted in compare's
// words, and a point left with no run is named.
func TestLeftOut(t *testing.T) {
	docs, err := Load("testdata/unclean.json")
	if err != nil {
		t.Fatal(err)
	}
	g, err := Groups(docs, nil, Options{CleanOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := LeftOut(g); !slices.Equal(got, []string{"1 unclean runs left out (--clean-only)"}) {
		t.Errorf("one run of two left out: %q", got)
	}
	if got, _ := Groups(docs, nil, Options{}); LeftOut(got) != nil {
		t.Errorf("without --clean-only: %q, want nothing", LeftOut(got))
	}
	// Both runs unclean: the point has none left, and says so.
	run2 := *docs[0].Results[0].Runs[1]
	docs[0].Results[0].Runs[0] = &run2
	g, err = Groups(docs, nil, Options{CleanOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2 unclean runs left out (--clean-only)",
		"write_lat RC poll 64 B: all 2 runs not clean, left out by --clean-only: not drawn"}
	if got := LeftOut(g); !slices.Equal(got, want) {
		t.Errorf("all runs left out:\n got  %q\n want %q", got, want)
	}
	for _, s := range LatencySeries(g) {
		if s.Name == "write_lat" {
			t.Errorf("a point with no clean run drawn: %+v", s)
		}
	}
}

func TestSelectLabel(t *testing.T) {
	docs, err := Load("testdata/base", "testdata/new", "testdata/old.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := SelectLabel(docs, "base")
	if err != nil || !slices.Equal(paths(got), []string{"testdata/base/a.json", "testdata/base/b.json"}) {
		t.Errorf("SelectLabel(base) = %q, %v", paths(got), err)
	}
	_, err = SelectLabel(docs, "fw-21")
	want := `no document labelled "fw-21" among the 4 read: labels found: base, candidate; 1 without a label (saved without --label) cannot be selected by one`
	if err == nil || err.Error() != want {
		t.Errorf("unknown label:\n got  %v\n want %s", err, want)
	}
	if l := Labels(docs); !slices.Equal(l, []string{"base", "candidate"}) {
		t.Errorf("Labels = %q, want by first started_at", l)
	}
	if _, err := OrderLabels(docs, []string{"candidate"}); err == nil || !strings.Contains(err.Error(), `label "base" found but not named`) {
		t.Errorf("OrderLabels missing one: %v", err)
	}
	if l, err := OrderLabels(docs, []string{"candidate", "base"}); err != nil || l[0] != "candidate" {
		t.Errorf("OrderLabels = %q, %v", l, err)
	}
}

// TestParseRefusals: malformed documents of the right tool are refused
// with the field named, never a panic.
func TestParseRefusals(t *testing.T) {
	head := `{"tool": {"name": "rdma-bench"}, "schema_version": 2, `
	point := `"workload": "write_bw", "kind": "bandwidth", "status": "insufficient", "size_bytes": 65536`
	for _, c := range []struct{ doc, want string }{
		{`{"schema_version": 2}`, `not an rdma-bench document: no tool.name, want "rdma-bench"`},
		{`{"tool": {"name": "rdma-bench"}}`, "schema_version missing: want 2"},
		{`{"tool": {"name": "rdma-bench"}, "schema_version": "2"}`, `schema_version "2": want the whole number 2`},
		{head + `"results": {}}`, "results: found an object, want an array"},
		{head + `"results": [null]}`, "results[0] is null: want a result object"},
		{head + `"results": [{"size_bytes": 64}]}`, `results[0].workload is empty: want a workload such as "write_lat"`},
		{head + `"results": [{"workload": "write_lat"}]}`, "results[0] (write_lat).size_bytes is 0: want a positive number of bytes"},
		{head + `"results": [{` + point + `, "bw_gbps": 1e999}]}`, "results.bw_gbps: number 1e999 is out of range: want a number or null"},
		{head + `"results": [{` + point + `, "status": "great"}]}`, `results[0] (write_bw 64 KiB).status: "great": want "ok", "partial" or "insufficient"`},
		{head + `"results": [{` + point + `, "runs": [{"cpu_s_per_gb": {"total": -0.5}}]}]}`,
			"results[0] (write_bw 64 KiB).runs[0].cpu_s_per_gb.total is -0.5: want a number not below 0, or null when not measured"},
		{head + `"results": [{` + point + `, "runs": [null]}]}`, "results[0] (write_bw 64 KiB).runs[0] is null: want a run object"},
		{`"rdma-bench"`, `not an rdma-bench document: the JSON is a string, want an object with tool.name "rdma-bench"`},
		{" \n", "empty: want an rdma-bench JSON document"},
		{`{"kind": "Pod", "apiVersion": "v1"}`, `not an rdma-bench document: no tool.name, want "rdma-bench"`},
		{`{"kind": "gate", "schema_version": 1, "tool": {"name": "rdma-bench"}, "rows": []}`,
			"a gate document: compare, plot and report read the documents of run and suite (rdma-bench gate has its own outputs); plot and report view a gate document named alone"},
		{`{"tool": "rdma-bench", "version": "0.3.0", "world": {}, "pairs": []}`,
			"a fabric document: compare, plot and report read the documents of run and suite (rdma-bench fabric has its own outputs); plot and report view a fabric document named alone"},
	} {
		_, err := Parse([]byte(c.doc))
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%s):\n got  %v\n want %s", c.doc, err, c.want)
		}
	}
}

// TestShortRepeatRefused: a point an interruption left with fewer runs
// than --repeat, each of them whole, is marked partial on the result and
// refused like a partial run.
func TestShortRepeatRefused(t *testing.T) {
	path := editedDoc(t, func(doc map[string]any) {
		r := doc["results"].([]any)[0].(map[string]any)
		r["status"], r["reason"] = "partial", "1 of 3 runs measured: interrupt received"
	})
	docs, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Pool(docs, Options{})
	if err == nil || !strings.Contains(err.Error(), "partial (1 of 3 runs measured: interrupt received): a point cut short is not compared; allow it with --allow-partial") {
		t.Errorf("short repeat: %v", err)
	}
	if _, err := Pool(docs, Options{AllowPartial: true}); err != nil {
		t.Errorf("short repeat allowed: %v", err)
	}
}

// TestLoadOtherKinds: a fabric document (today's, with a kind, and one
// from before, whose tool is a string) and a gate document in a directory
// are left out with a note naming each; named, each is refused; a
// directory with no run document is an error.
func TestLoadOtherKinds(t *testing.T) {
	dir := t.TempDir()
	run, err := os.ReadFile("testdata/base/a.json")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"a.json":       string(run),
		"fabric.json":  `{"tool": "rdma-bench fabric", "version": "devel", "pairs": []}`,
		"fabric2.json": `{"kind": "fabric", "schema_version": 1, "tool": {"name": "rdma-bench"}}`,
		"gate.json":    `{"kind": "gate", "schema_version": 1, "tool": {"name": "rdma-bench"}}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var notes []string
	docs, err := LoadNoting(context.Background(), func(s string) { notes = append(notes, s) }, dir)
	if err != nil || len(docs) != 1 || !strings.HasSuffix(docs[0].Path, "a.json") {
		t.Fatalf("LoadNoting(dir) = %d docs, %v; want a.json only", len(docs), err)
	}
	if len(notes) != 3 || !strings.Contains(notes[0], "fabric.json: left out: a fabric document") ||
		!strings.Contains(notes[1], "fabric2.json: left out: a fabric document") || !strings.Contains(notes[2], "gate.json: left out: a gate document") {
		t.Errorf("notes %q", notes)
	}
	if _, err := Load(filepath.Join(dir, "fabric.json")); err == nil || !strings.Contains(err.Error(), "a fabric document: compare, plot and report read the documents of run and suite") {
		t.Errorf("named fabric document: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "a.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "no run or suite document among the 3 found") {
		t.Errorf("directory of other kinds: %v", err)
	}
}
