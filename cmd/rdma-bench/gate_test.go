//go:build cgo

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/gate"
)

// fakeBench writes a script that answers "version" as rdma-bench but
// prints text for a run: a base that speaks another format.
func fakeBench(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-bench")
	script := "#!/bin/sh\nif [ \"$1\" = version ]; then echo 'rdma-bench v0.1 (commit abc)'; exit 0; fi\necho 'latency 12 us'\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGateBadInput: every refusal is exit 2 with a message naming what is
// wrong, before anything is measured (tcp_lat needs no RDMA device).
func TestGateBadInput(t *testing.T) {
	fake := fakeBench(t)
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"nope:64"}, `unknown workload "nope"`},
		{[]string{"write_lat"}, "want WORKLOAD:SIZE"},
		{[]string{"write_lat:64", "write_lat:64"}, "given twice"},
		{[]string{"--base-bin", "/nonexistent/rdma-bench"}, "--base-bin /nonexistent/rdma-bench: not an executable file"},
		{[]string{"tcp_lat:64", "--base-bin", "/bin/true"}, "base side: /bin/true version printed \"\": not rdma-bench"},
		{[]string{"tcp_lat:64", "--candidate-bin", fake, "--save-dir", dir}, "candidate side: " + fake + " run tcp_lat"},
		{[]string{"--method", "bayes"}, `--method "bayes": want paired or unpaired`},
		{[]string{"tcp_lat:64", "--candidate-args", "--bogus", "--save-dir", dir}, "candidate side: "},
		{[]string{"--candidate-args", "-s 64"}, "--candidate-args: -s is the gate's to set"},
		{[]string{"--base-env", "NOVALUE"}, `--base-env "NOVALUE": want NAME=VALUE`},
		{[]string{"--fail-on", "lat.p50>5%"}, "--fail-on"},
		{[]string{"write_bw:4K", "--fail-on", "lat.p50>+5%"}, "no threshold for its metric bw"},
		{[]string{"--max-pairs", "5"}, "want at least --first-look (10)"},
		{[]string{"--first-look", "1"}, "--first-look 1: want at least 2 pairs"},
		{[]string{"--look-growth", "1"}, "--look-growth 1: want 1.1 to 4"},
		{[]string{"--alpha", "0.7"}, "want a value between 0 and 0.5"},
		{[]string{"--budget", "0s"}, "want a positive duration"},
		{[]string{"-o", "xml"}, "-o xml: want table, json, markdown, junit"},
		{[]string{"tcp_lat:64", "--budget", "100ms", "--save-dir", dir}, "--budget 100ms is too short: a look that can decide needs 7 pairs"},
	}
	for _, c := range cases {
		r := run(t, 2*time.Minute, append([]string{"gate"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("gate %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("refused gates left %d files in the save directory", len(ents))
	}
}

// TestGateTCPAA: an A/A gate of the TCP baseline, the path a user takes:
// it must not fail (exit 0 pass or 3 undecided), print the table with the
// row and the gate's line last, and save the document with every pair.
func TestGateTCPAA(t *testing.T) {
	dir := t.TempDir()
	// A behaviour test, not a statistical one: a 1% false-alarm budget
	// would fail it one run in a hundred, so the budget is 0.01% and the
	// threshold wide.
	r := run(t, 5*time.Minute, "gate", "tcp_lat:64", "--max-pairs", "10", "--save-dir", dir,
		"--alpha", "0.0001", "--fail-on", "lat.p50>+50%")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	last := lines[len(lines)-1]
	if (r.code != 0 && r.code != 3) || !strings.Contains(r.stdout, "| tcp_lat 64 B ") ||
		!strings.HasPrefix(last, "gate pass (exit 0)") && !strings.HasPrefix(last, "gate undecided (exit 3)") {
		t.Fatalf("A/A gate: exit %d\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "gate: pair 10: ") {
		t.Errorf("no progress line for pair 10 on stderr:\n%s", r.stderr)
	}
	d := readGateDoc(t, dir)
	if d.Status != gate.StatusComplete || len(d.Rows) != 1 || len(d.Rows[0].Base) != 10 || len(d.Rows[0].Candidate) != 10 {
		t.Fatalf("saved document: status %s, rows %d", d.Status, len(d.Rows))
	}
	if d.Base.RunsAs != gate.RunsAsWorker || d.Candidate.RunsAs != gate.RunsAsWorker || d.Load == nil {
		t.Errorf("sides run as %q and %q (want workers), load %+v", d.Base.RunsAs, d.Candidate.RunsAs, d.Load)
	}
	if over := (d.Seconds - d.RunSeconds) / float64(d.Runs); over > 0.05 {
		t.Logf("the gate's own time per run: %.0f ms (more than 50 ms; a loaded machine?)", over*1000)
	}
}

// TestGateTCPCIFormats: -o junit and -o markdown through the command, to
// a file, as a CI step takes them.
func TestGateTCPCIFormats(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ format, want string }{
		{"junit", `<testcase name="lat.p50" classname="tcp_lat 64 B" time="0">`},
		{"markdown", "| tcp_lat 64 B | lat.p50 (us) | 4 |"},
	} {
		out := filepath.Join(dir, "gate."+c.format)
		r := run(t, 3*time.Minute, "gate", "tcp_lat:64", "--max-pairs", "4", "--first-look", "4", "--save-dir", dir,
			"--alpha", "0.0001", "--fail-on", "lat.p50>+50%", "-o", c.format, "--output-file", out)
		b, err := os.ReadFile(out)
		if err != nil || (r.code != 0 && r.code != 3) || !strings.Contains(string(b), c.want) {
			t.Errorf("-o %s: exit %d, %v; want %q in:\n%s\nstderr:\n%s", c.format, r.code, err, c.want, b, r.stderr)
		}
	}
}

// TestGateInterrupted: Ctrl-C in the middle keeps the pairs measured,
// saved as partial, and exits 130.
func TestGateInterrupted(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(binary(t), "gate", "tcp_lat:64", "--max-pairs", "40", "--save-dir", dir)
	var out bytes.Buffer
	errb := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = &out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(errb.String(), "gate: pair 2: ") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if code != 130 || !strings.Contains(out.String(), "gate partial") {
		t.Fatalf("interrupted gate: exit %d\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	d := readGateDoc(t, dir)
	if d.Status != gate.StatusPartial || len(d.Rows[0].Base) < 2 || d.Reason == "" {
		t.Fatalf("saved document: status %s, %d pairs, reason %q", d.Status, len(d.Rows[0].Base), d.Reason)
	}
}

func readGateDoc(t *testing.T, dir string) *gate.Document {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "gate-*.json"))
	if len(m) != 1 {
		t.Fatalf("%d gate documents in %s, want 1", len(m), dir)
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	var d gate.Document
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// TestGateWorkerDies: the candidate's worker is killed mid-gate (a side
// whose binary crashes): the gate ends within its run timeout, exit 4,
// the pairs measured so far saved as partial and the side named.
func TestGateWorkerDies(t *testing.T) {
	dir := t.TempDir()
	side := filepath.Join(t.TempDir(), "dies")
	// The candidate's worker answers five requests (and a held run's go
	// lines), then its input ends and it exits: mid-gate, before any look
	// can decide, however fast the machine.
	script := "#!/bin/sh\nif [ \"$1\" = worker ]; then i=0; while IFS= read -r l; do case \"$l\" in *'\"args\"'*) i=$((i+1)); [ $i -gt 5 ] && break;; esac; printf '%s\\n' \"$l\"; done | " + binary(t) + " worker; exit; fi\nexec " + binary(t) + " \"$@\"\n"
	if err := os.WriteFile(side, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := run(t, 3*time.Minute, "gate", "tcp_lat:64", "--candidate-bin", side, "--save-dir", dir, "--run-timeout", "30s", "--worker-rounds", "0")
	if r.code != 4 || !strings.Contains(r.stdout, "partial: ") || !strings.Contains(r.stdout+r.stderr, "the candidate side's worker ended") {
		t.Fatalf("a worker killed mid-gate: exit %d, want 4 naming the side:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	d := readGateDoc(t, dir)
	if d.Status != gate.StatusPartial || len(d.Rows[0].Base) == 0 || d.Candidate.RunsAs != gate.RunsAsWorker {
		t.Fatalf("saved document: status %s, %d pairs, candidate runs as %q", d.Status, len(d.Rows[0].Base), d.Candidate.RunsAs)
	}
}
