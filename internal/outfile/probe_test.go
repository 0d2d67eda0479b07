package outfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProbeDirLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "a", "b")
	if err := ProbeDir(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(parent, "a")); !os.IsNotExist(err) {
		t.Errorf("the probe left %s behind: %v", filepath.Join(parent, "a"), err)
	}
	if err := ProbeDir(parent); err != nil {
		t.Fatal(err)
	}
	if got := names(t, parent); len(got) != 0 {
		t.Errorf("the probe left %v in an existing directory", got)
	}
}

func TestProbeDirRefusesAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ProbeDir(file); err == nil || err.Error() != "not a directory" {
		t.Errorf("ProbeDir(a file) = %v, want not a directory", err)
	}
	if err := ProbeDir(filepath.Join(file, "plots")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("ProbeDir(under a file) = %v, want not a directory", err)
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range es {
		n = append(n, e.Name())
	}
	return n
}
