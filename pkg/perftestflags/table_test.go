package perftestflags

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite docs/perftest-flags.md from the table")

// helpFlag is one flag of a perftest --help.
type helpFlag struct {
	short, long string
	value       bool // shown as --long=<...>
}

// version is the flags one perftest version lists.
type version struct {
	name  string
	flags map[string]helpFlag
}

// perftestVersions reads the flags of both versions kept in testdata:
// 4.5's captured --help texts and upstream's option lists.
func perftestVersions(t *testing.T) []version {
	t.Helper()
	return []version{
		perftestHelp(t, "4.5", "testdata/4.5/*.help", 8, 80),
		perftestHelp(t, "upstream", "testdata/upstream/*.options", 3, 150),
	}
}

// perftestHelp reads the flags of the want files of glob (help lines:
// "  -x, --long=<...>"), at least least of them.
func perftestHelp(t *testing.T, name, glob string, want, least int) version {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) != want {
		t.Fatalf("want the %d files %s in testdata, found %v (%v)", want, glob, files, err)
	}
	re := regexp.MustCompile(`(?m)^[ \t]+(?:-([A-Za-z]), )?--([A-Za-z0-9_-]+)(=)?`)
	flags := map[string]helpFlag{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			h := helpFlag{short: m[1], long: m[2], value: m[3] != ""}
			if old, ok := flags[h.long]; ok {
				if old.short != h.short && old.short != "" && h.short != "" {
					t.Fatalf("%s --%s: -%s in one file, -%s in another", name, h.long, old.short, h.short)
				}
				h.short, h.value = max(h.short, old.short), h.value || old.value
			}
			flags[h.long] = h
		}
	}
	if len(flags) < least {
		t.Fatalf("%s: read only %d flags from %s", name, len(flags), glob)
	}
	return version{name, flags}
}

// Every flag of both versions (4.5's ib_*_bw and ib_*_lat --help,
// upstream's option lists) has its row, with perftest's letter where the
// version shows one, and a value where either takes one; the table has no
// row that neither lists.
func TestPerftestTableCoversHelp(t *testing.T) {
	listed := map[string]bool{}
	for _, v := range perftestVersions(t) {
		for _, h := range v.flags {
			listed[h.long] = true
			e := Long(h.long)
			switch {
			case e == nil:
				t.Errorf("%s's --%s (letter %q) has no row in Table", v.name, h.long, h.short)
			case h.short != "" && e.Short != h.short:
				t.Errorf("--%s: row has -%s, perftest %s -%s", h.long, e.Short, v.name, h.short)
			case h.value && !e.Value:
				t.Errorf("--%s: perftest %s's takes a value, the row says it does not", h.long, v.name)
			}
		}
		t.Logf("perftest %s: %d flags", v.name, len(v.flags))
	}
	seen := map[string]bool{}
	for _, e := range Table {
		spellings := append([]string{e.Long}, e.Also...)
		if !slices.ContainsFunc(spellings, func(s string) bool { return listed[s] }) {
			t.Errorf("row --%s is not a flag of either version", e.Long)
		}
		for _, s := range append(spellings, "-"+e.Short) {
			if s != "-" && seen[s] {
				t.Errorf("row --%s: %s twice", e.Long, s)
			}
			seen[s] = true
		}
	}
	t.Logf("%d rows", len(Table))
}

// docs/perftest-flags.md is the table, written by perftestDoc (go test
// -run PerftestDoc -update rewrites it).
func TestPerftestDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "perftest-flags.md")
	got := perftestDoc()
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil || string(want) != got {
		t.Errorf("%s is not the table (%v): run go test ./pkg/perftestflags -run PerftestDoc -update", path, err)
	}
}
