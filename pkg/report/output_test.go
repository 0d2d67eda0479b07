package report

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestSaveJSONCreatesDirAndNeverClobbers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing", "results")
	doc := fixtureDocument()
	doc.Results = doc.Results[:3] // write_lat only

	var paths []string
	for range 3 {
		p, err := SaveJSON(dir, doc)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	base := "rdma-bench-20250102-030405-write_lat"
	want := []string{base + ".json", base + "-1.json", base + "-2.json"}
	for i, p := range paths {
		if p != filepath.Join(dir, want[i]) {
			t.Errorf("path %d = %s, want %s", i, p, want[i])
		}
	}
	if got := dirNames(t, dir); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("dir holds %v, want exactly %v (no temporary file)", got, want)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := decoded(t, data); len(got.Results) != 3 {
		t.Errorf("%d results, want 3", len(got.Results))
	}
	if fi, err := os.Stat(paths[0]); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, err %v", fi.Mode(), err)
	}
}

func TestSaveJSONSuiteName(t *testing.T) {
	dir := t.TempDir()
	p, err := SaveJSON(dir, fixtureDocument())
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(p) != "rdma-bench-20250102-030405-suite.json" {
		t.Errorf("path %s", p)
	}
	doc := &Document{StartedAt: fixtureTime, Results: []*Result{{Params: Params{Workload: "../evil/x"}}}}
	p, err = SaveJSON(dir, doc)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(p) != dir || filepath.Base(p) != "rdma-bench-20250102-030405-_evil_x.json" {
		t.Errorf("unsafe label escaped: %s", p)
	}
}

func TestSaveJSONErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plain-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := SaveJSON(filepath.Join(file, "sub"), fixtureDocument()); err == nil {
		t.Error("no error for a directory under a file")
	}
	if _, err := SaveJSON(dir, nil); err == nil {
		t.Error("no error for a nil document")
	}
	// A document that cannot be encoded (a NaN setting is an engine bug)
	// fails and leaves no temporary file behind.
	bad := fixtureDocument()
	bad.Results[0].DurationS = math.NaN()
	if _, err := SaveJSON(dir, bad); err == nil || !strings.HasPrefix(err.Error(), "save json: ") {
		t.Errorf("err = %v, want a save json error", err)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"plain-file"}) {
		t.Errorf("dir holds %v", got)
	}
}
