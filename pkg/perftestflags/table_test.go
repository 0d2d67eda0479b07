package perftestflags

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite docs/perftest-flags.md from the table")

// helpFlag is one flag of a perftest --help.
type helpFlag struct {
	short, long string
	value       bool // shown as --long=<...>
}

// perftestHelp reads the flags of the captured perftest --help texts.
func perftestHelp(t *testing.T) map[string]helpFlag {
	t.Helper()
	files, err := filepath.Glob("testdata/*.help")
	if err != nil || len(files) != 8 {
		t.Fatalf("want the 8 captured --help texts in testdata, found %v (%v)", files, err)
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
			if old, ok := flags[h.long]; ok && old.short != h.short {
				t.Fatalf("--%s: -%s in one help, -%s in another", h.long, old.short, h.short)
			}
			flags[h.long] = h
		}
	}
	if len(flags) < 80 {
		t.Fatalf("read only %d flags from the help texts", len(flags))
	}
	return flags
}

// Every flag of perftest's ib_*_bw and ib_*_lat --help has its row, with
// perftest's letter, and the table has no row perftest does not list.
func TestPerftestTableCoversHelp(t *testing.T) {
	help := perftestHelp(t)
	for _, h := range help {
		e := Long(h.long)
		switch {
		case e == nil:
			t.Errorf("perftest's --%s (letter %q) has no row in Table", h.long, h.short)
		case e.Short != h.short:
			t.Errorf("--%s: row has -%s, perftest -%s", h.long, e.Short, h.short)
		case h.value && !e.Value:
			t.Errorf("--%s: perftest's takes a value, the row says it does not", h.long)
		}
	}
	seen := map[string]bool{}
	for _, e := range Table {
		if _, ok := help[e.Long]; !ok {
			t.Errorf("row --%s is not a flag of perftest's --help", e.Long)
		}
		if seen[e.Long] || e.Short != "" && seen["-"+e.Short] {
			t.Errorf("row --%s (-%s) twice", e.Long, e.Short)
		}
		seen[e.Long], seen["-"+e.Short] = true, e.Short != ""
	}
	t.Logf("%d perftest flags, %d rows", len(help), len(Table))
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
