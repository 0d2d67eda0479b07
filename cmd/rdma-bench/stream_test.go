//go:build cgo

package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// records reads a streamed document's lines, each one JSON object with a
// type; the types in order.
func records(t *testing.T, out string) (types []string, lines []string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var r struct{ Type string }
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Type == "" {
			t.Fatalf("line %q: not a record (%v)", l, err)
		}
		types, lines = append(types, r.Type), append(lines, l)
	}
	return types, lines
}

// -o ndjson (and --json-stream): a start record, interval records at
// --report-interval, a point record per run, then the whole document,
// which reads back as -o json's.
func TestStreamedDocument(t *testing.T) {
	for _, spelling := range [][]string{{"-o", "ndjson"}, {"--json-stream"}} {
		args := append([]string{"run", "tcp_lat", "--loopback", "-D", "0.3", "--report-interval", "50ms", "--repeat", "2"}, spelling...)
		r := run(t, 60*time.Second, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		types, lines := records(t, r.stdout)
		n := len(types)
		if n < 6 || types[0] != document.RecordStart || types[n-1] != document.RecordDocument ||
			strings.Count(strings.Join(types, " "), document.RecordPoint) != 2 || strings.Count(strings.Join(types, " "), document.RecordInterval) < 2 {
			t.Fatalf("%v: records %v", spelling, types)
		}
		var start document.StreamStart
		var iv document.StreamInterval
		var last document.StreamDocument
		if json.Unmarshal([]byte(lines[0]), &start) != nil || start.Runs != 2 || start.Repeat != 2 || start.Host.Placement == nil {
			t.Errorf("start: %s", lines[0])
		}
		if json.Unmarshal([]byte(lines[1]), &iv) != nil || iv.Workload != "tcp_lat" || iv.Run != 1 || iv.Interval.LatencyUS == nil ||
			iv.Interval.LatencyUS.P50 == nil || iv.Cumulative.Ops < iv.Interval.Ops {
			t.Errorf("interval: %s", lines[1])
		}
		if err := json.Unmarshal([]byte(lines[n-1]), &last); err != nil || last.Document == nil {
			t.Fatalf("document: %v", err)
		}
		b, _ := json.Marshal(last.Document)
		if d, err := document.Parse(b); err != nil || len(d.Results) != 1 || len(d.Results[0].Runs) != 2 {
			t.Errorf("the last record's document does not read back: %v", err)
		}
	}
	if r := run(t, 30*time.Second, "run", "tcp_lat", "--loopback", "--json-stream", "-o", "table"); r.code != 2 || !strings.Contains(r.stderr, "--json-stream is -o ndjson: it cannot go with -o table") {
		t.Errorf("--json-stream -o table: exit %d, %s", r.code, r.stderr)
	}
}

// A run killed on the way leaves what it streamed: the start record and
// the intervals so far, every line whole.
func TestStreamedDocumentKilled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.ndjson")
	cmd := exec.Command(binary(t), "run", "tcp_bw", "--loopback", "-D", "30", "--report-interval", "100ms", "-o", "ndjson", "--output-file", path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.Count(string(b), "\n") >= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s the stream holds %q", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
	}
	types, _ := records(t, out.String())
	if types[0] != document.RecordStart || types[1] != document.RecordInterval || types[len(types)-1] == document.RecordDocument {
		t.Errorf("killed: records %v", types)
	}
}
