//go:build cgo

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
	"github.com/rdma-bench/rdma-bench/pkg/bench"
)

// TestMainJob runs the main job's command path, `make bench`'s
// `rdma-bench suite --loopback --save`, with its default output (the
// RDMA-against-TCP comparison) and short points, then checks the table and
// the saved document: every workload at every size, measured, like for
// like (RDMA and TCP in the same completion mode).
func TestMainJob(t *testing.T) {
	testenv.Device(t)
	dir := t.TempDir()
	sizes := []int{2, 65536}
	r := run(t, 5*time.Minute, "suite", "--loopback", "--save", "--results-dir", dir, "--sizes", "2,64K", "-D", "0.3")
	if r.code != 0 {
		t.Fatalf("suite: exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"completion: RC poll, TCP poll", "latency: half the round trip", "p50 ratio",
		"bandwidth: cpu/GB adds both sides", "BW ratio", "tcp_lat", "tcp_bw", "write_lat", "read_bw", "device rxe"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the table has no %q:\n%s", want, r.stdout)
		}
	}
	// Every RDMA row has figures: no "-" in a measured column.
	for _, line := range strings.Split(r.stdout, "\n") {
		f := strings.Split(line, "|")
		if len(f) > 4 && strings.Contains(line, "_bw") && strings.TrimSpace(f[3]) == "-" {
			t.Errorf("a bandwidth row without a figure: %s", line)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "rdma-bench-*-suite.json"))
	if len(files) != 1 || !strings.Contains(r.stderr, "saved "+files[0]) {
		t.Fatalf("saved %v; stderr %s", files, r.stderr)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var doc savedDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("saved document: %v", err)
	}
	if doc.SchemaVersion != 2 || doc.Device == nil || doc.Tool.Commit == "" {
		t.Errorf("document header: schema %d, device %v, commit %q", doc.SchemaVersion, doc.Device, doc.Tool.Commit)
	}
	got := map[string]bool{}
	for _, res := range doc.Results {
		key := fmt.Sprintf("%s/%d", res.Workload, res.SizeBytes)
		got[key] = true
		if res.Status != "ok" || res.Ops == 0 || res.Clock == "" || res.Completion != "poll" {
			t.Errorf("%s: status %s, %d ops, clock %q, completion %s", key, res.Status, res.Ops, res.Clock, res.Completion)
		}
		if res.Cpu.Local == nil || res.Cpu.Remote != nil || !res.Cpu.OneProcess {
			t.Errorf("%s: in loopback the CPU is one process's: %+v", key, res.Cpu)
		}
	}
	for _, s := range sizes {
		for _, w := range bench.SuiteWorkloads {
			if !got[fmt.Sprintf("%s/%d", w, s)] {
				t.Errorf("no %s at %d bytes in the document", w, s)
			}
		}
	}
	if len(doc.Results) != len(sizes)*len(bench.SuiteWorkloads) {
		t.Errorf("%d results, want %d", len(doc.Results), len(sizes)*len(bench.SuiteWorkloads))
	}
}

// TestSuiteJSONAndLiveFigures: the suite as JSON on stdout, with live
// figures on stderr for every point, RDMA and TCP.
func TestSuiteJSONAndLiveFigures(t *testing.T) {
	testenv.Device(t)
	r := run(t, 5*time.Minute, "suite", "--loopback", "--sizes", "64", "-D", "0.3", "--report-interval", "100ms", "-o", "json")
	if r.code != 0 {
		t.Fatalf("suite: exit %d: %s", r.code, r.stderr)
	}
	var doc savedDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("json output: %v\n%s", err, r.stdout)
	}
	if len(doc.Results) != len(bench.SuiteWorkloads) {
		t.Errorf("%d results, want %d", len(doc.Results), len(bench.SuiteWorkloads))
	}
	if n := strings.Count(r.stderr, "cumulative:"); n < len(doc.Results) {
		t.Errorf("%d live figures for %d points of 0.3 s at 100 ms:\n%s", n, len(doc.Results), r.stderr)
	}
}
