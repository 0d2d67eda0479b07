//go:build !cgo

package main

// The offline build's own tests: make unit runs them, with the compare,
// plot, report and version tests, under CGO_ENABLED=0, so that binary(t)
// is the offline build.

import (
	"debug/elf"
	"strings"
	"testing"
	"time"
)

// TestOfflineStatic: the offline binary links no shared library at all,
// so it starts where rdma-core (libibverbs, librdmacm) is not installed.
func TestOfflineStatic(t *testing.T) {
	f, err := elf.Open(binary(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	if len(libs) > 0 {
		t.Errorf("the offline build links %v, want a static binary", libs)
	}
	if interp := f.Section(".interp"); interp != nil {
		t.Errorf("the offline build has a dynamic loader (.interp), want a static binary")
	}
}

// TestOfflineRefusesToMeasure: every command that measures (RDMA or TCP:
// both loops are C) refuses with exit 2 and says why and what runs, before
// parsing anything; version says what the build is.
func TestOfflineRefusesToMeasure(t *testing.T) {
	for _, args := range [][]string{
		{"run", "write_lat", "--loopback", "-s", "64"},
		{"run", "tcp_bw", "--loopback"},
		{"suite", "--loopback"},
		{"server"},
		{"devices"},
		{"gate", "write_lat:64"},
		{"worker"},
		{"fabric"},
	} {
		r := run(t, 10*time.Second, args...)
		want := "rdma-bench " + args[0] + ": built without rdma-core (CGO_ENABLED=0): " + args[0] + " needs the cgo build"
		if r.code != 2 || !strings.HasPrefix(r.stderr, want) || !strings.Contains(r.stderr, "this build runs compare, history, plot, report") || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, r.code, r.stdout, r.stderr, want)
		}
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := run(t, 10*time.Second, args...)
		if r.code != 0 || !strings.HasSuffix(r.stdout, " [offline build: no RDMA (CGO_ENABLED=0)]\n") {
			t.Errorf("%v: exit %d, %q; want the offline build named", args, r.code, r.stdout)
		}
	}
	r := run(t, 10*time.Second, "help")
	if !strings.Contains(r.stderr, "  run        not in this build: needs the cgo build with rdma-core\n") ||
		!strings.Contains(r.stderr, "  compare    compare saved results") {
		t.Errorf("help: %q; want run marked as not in this build, compare as it is", r.stderr)
	}
}
