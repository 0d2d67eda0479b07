package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// The fault-injection suite, "no green without measuring": each case makes
// a path measure nothing, or less than it says, and checks that every view
// of it (every output format, and the charts and report that read it)
// ends in a non-zero exit naming why. Each view's outcome is one of the
// tally's classes; with RDMA_BENCH_TALLY=FILE set, each is appended to
// FILE as a line "case<TAB>view<TAB>outcome<TAB>detail" for
// scripts/diag/fault-tally.sh. The cases and their outcomes:
// docs/faults.md.

// Outcomes of a view, the tally's classes.
const (
	outcomeClean     = "clean"             // non-zero exit, the reason named, what was measured kept
	outcomeSilent    = "silently accepted" // exit 0
	outcomeHang      = "hang"              // no end within its bound
	outcomeCrash     = "crash"             // a panic, or killed by a signal it should handle
	outcomeMisled    = "misleading"        // non-zero, but the reason not named or the wrong status
	outcomeDataLost  = "data lost"         // what was measured is not in the view
	noGreenViewLimit = 60 * time.Second
)

// viewRun is one command of a view, as it ended.
type viewRun struct {
	code           int
	stdout, stderr string
	hung, signaled bool
}

// view is one way a case is seen: a command line, the exit codes it may
// end with, and what its output (standard output or error) must name.
type view struct {
	name   string
	args   []string
	codes  []int    // the exit codes wanted; 0 is never one
	reason []string // each must appear in stdout or stderr ("a|b": one of them)
	// kept, when set, says whether what was measured is in the output.
	kept func(r viewRun) bool
	// absent are files the view must not have written.
	absent []string
}

var tallyMu sync.Mutex

// judge classifies r against v and records it: the test fails unless it
// is clean.
func judge(t *testing.T, testCase string, v view, r viewRun) {
	t.Helper()
	outcome, detail := classify(v, r)
	if path := os.Getenv("RDMA_BENCH_TALLY"); path != "" {
		tallyMu.Lock()
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s\t%s\t%s\t%s\n", testCase, v.name, outcome, strings.ReplaceAll(detail, "\n", " "))
			f.Close()
		}
		tallyMu.Unlock()
	}
	if outcome != outcomeClean {
		t.Errorf("%s: %s: %s: %s\nstdout: %.2000s\nstderr: %.2000s", testCase, v.name, outcome, detail, r.stdout, r.stderr)
	}
}

// classify says which of the tally's classes r is.
func classify(v view, r viewRun) (string, string) {
	all := r.stdout + r.stderr
	switch {
	case r.hung:
		return outcomeHang, fmt.Sprintf("still running after %v", noGreenViewLimit)
	case r.signaled || strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine "):
		return outcomeCrash, fmt.Sprintf("exit %d", r.code)
	case r.code == 0:
		return outcomeSilent, "exit 0"
	}
	wanted := false
	for _, c := range v.codes {
		wanted = wanted || c == r.code
	}
	if !wanted {
		return outcomeMisled, fmt.Sprintf("exit %d, want one of %v", r.code, v.codes)
	}
	for _, s := range v.reason {
		if !namesOneOf(all, s) {
			return outcomeMisled, fmt.Sprintf("exit %d without %q", r.code, s)
		}
	}
	for _, p := range v.absent {
		if _, err := os.Stat(p); err == nil {
			return outcomeMisled, p + " written"
		}
	}
	if v.kept != nil && !v.kept(r) {
		return outcomeDataLost, "what was measured is not in the output"
	}
	return outcomeClean, fmt.Sprintf("exit %d", r.code)
}

// namesOneOf says whether s holds one of the alternatives of want, "a|b".
func namesOneOf(s, want string) bool {
	for _, w := range strings.Split(want, "|") {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// skipInVM skips a test that reads saved documents inside the VM: no case
// needs a device, the host's run covers them, and under emulation each
// process takes seconds to start.
func skipInVM(t *testing.T) {
	t.Helper()
	if os.Getenv("RDMA_BENCH_IN_VM") != "" {
		t.Skip("no case needs a device: the host's run covers them (a process takes seconds to start under emulation)")
	}
}

// runView runs v's command to its end, at most noGreenViewLimit.
func runView(t *testing.T, v view) viewRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), noGreenViewLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), v.args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := viewRun{stdout: out.String(), stderr: errb.String(), hung: ctx.Err() != nil}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && !r.hung {
			r.signaled = true
		}
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// docFault is a saved document that says it measured what it did not: a
// key dropped, a clock that jumped, a histogram emptied.
type docFault struct {
	name   string
	edit   func(doc map[string]any)
	reason string // what every view must name
	// readers are the views that read what the fault broke: "compare",
	// "plot", "report" (nil: all three).
	readers []string
}

// docFaults are the document cases, each an edit of compare's base
// fixture (6 points, 10 runs each).
var docFaults = []docFault{
	{"dropped latency_us", func(d map[string]any) { delete(resultOf(d, 0), "latency_us") },
		"results[0] (write_lat 64 B).latency_us.p50 is missing in a run marked ok", nil},
	{"dropped runs' latency_us", func(d map[string]any) {
		for _, r := range runsOf(d, 0) {
			delete(r, "latency_us")
		}
	}, "results[0] (write_lat 64 B).runs[0].latency_us.p50 is missing", nil},
	{"dropped bw_gbps", func(d map[string]any) { delete(resultOf(d, 4), "bw_gbps") },
		"results[4] (write_bw 64 KiB).bw_gbps is missing in a run marked ok", nil},
	{"dropped msg_rate_mpps", func(d map[string]any) {
		for _, r := range runsOf(d, 5) {
			delete(r, "msg_rate_mpps")
		}
	}, "results[5] (tcp_bw 64 KiB).runs[0].msg_rate_mpps is missing", nil},
	{"dropped kind", func(d map[string]any) { delete(resultOf(d, 2), "kind") },
		`results[2] (tcp_lat 64 B).kind is "": want "latency" or "bandwidth"`, nil},
	{"dropped runs", func(d map[string]any) { delete(resultOf(d, 1), "runs") },
		"results[1] (write_lat 4 KiB).runs is missing: the document measured every point 10 times", nil},
	{"dropped run", func(d map[string]any) {
		r := resultOf(d, 3)
		r["runs"] = r["runs"].([]any)[:9]
	}, "results[3] (tcp_lat 4 KiB).runs holds 9 runs in a result marked ok: want the 10 of repeat", nil},
	{"clock backwards", func(d map[string]any) { runsOf(d, 0)[4]["elapsed_ns"] = -1500 },
		"results[0] (write_lat 64 B).runs[4].elapsed_ns is -1500", nil},
	{"clock jump: percentiles out of order", func(d map[string]any) {
		resultOf(d, 2)["latency_us"].(map[string]any)["p50"] = 900.0
	}, "results[2] (tcp_lat 64 B).latency_us.p90", nil},
	{"clock jump: a percentile past max", func(d map[string]any) {
		runsOf(d, 3)[7]["latency_us"].(map[string]any)["p99_99"] = 1e6
	}, "results[3] (tcp_lat 4 KiB).runs[7].latency_us.p99_99 is 1e+06, above max", nil},
	// compare reads no histogram: its figures are the runs' latency_us.
	{"empty histogram", func(d map[string]any) { resultOf(d, 0)["histogram"] = emptyHistogram() },
		"results[0] (write_lat RC poll 64 B).histogram holds no sample, where samples says 10000", []string{"plot", "report"}},
	{"every point partial", func(d map[string]any) {
		for i := range d["results"].([]any) {
			resultOf(d, i)["status"], resultOf(d, i)["reason"] = "partial", "interrupted: interrupt received"
		}
	}, "cut short", nil},
	// As the writer leaves a point whose timed part completed nothing:
	// status insufficient, no figure.
	{"every point insufficient", func(d map[string]any) {
		for i := range d["results"].([]any) {
			for _, f := range append(runsOf(d, i), resultOf(d, i)) {
				f["status"], f["reason"] = "insufficient", "the timed part completed 0 operations in 0 ns: too little for a figure"
				f["ops"], f["elapsed_ns"], f["samples"] = 0, 0, 0
				for _, k := range []string{"latency_us", "bw_gbps", "bw_mibps", "msg_rate_mpps", "histogram"} {
					delete(f, k)
				}
				f["cpu_us_per_op"], f["cpu_s_per_gb"] = map[string]any{}, map[string]any{}
			}
		}
	}, "insufficient", nil},
}

// emptyHistogram is an HdrHistogram of the writer's range and precision,
// in its encoding, holding no value (the writer writes none: a document
// holding one was damaged).
func emptyHistogram() string {
	b, err := hdrhistogram.New(report.LatencyMinNS, report.LatencyMaxNS, report.LatencySigFigs).Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func resultOf(d map[string]any, i int) map[string]any {
	return d["results"].([]any)[i].(map[string]any)
}

func runsOf(d map[string]any, i int) []map[string]any {
	var out []map[string]any
	for _, r := range resultOf(d, i)["runs"].([]any) {
		out = append(out, r.(map[string]any))
	}
	return out
}

// writeFault writes compare's base fixture with f's edit into dir.
func writeFault(t *testing.T, dir string, f docFault) string {
	t.Helper()
	raw, err := os.ReadFile(fixtures + "base.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	f.edit(doc)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "fault.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// docViews are the views of a document: compare against the base
// fixture in every format, plot and report. Bad input: exit 2, nothing
// written.
func docViews(dir, doc string, f docFault) []view {
	want := func(name string) bool {
		if f.readers == nil {
			return true
		}
		for _, r := range f.readers {
			if strings.HasPrefix(name, r) {
				return true
			}
		}
		return false
	}
	var vs []view
	for _, format := range []string{"table", "markdown", "json", "junit"} {
		out := filepath.Join(dir, "compare."+format)
		vs = append(vs, view{name: "compare -o " + format, codes: []int{2}, reason: []string{f.reason}, absent: []string{out},
			args: []string{"compare", "--session-noise", "0", "-o", format, "--output-file", out, fixtures + "base.json", doc}})
	}
	plots := filepath.Join(dir, "plots")
	vs = append(vs, view{name: "plot", codes: []int{2}, reason: []string{f.reason}, absent: []string{plots},
		args: []string{"plot", doc, "--dir", plots}})
	html := filepath.Join(dir, "report.html")
	vs = append(vs, view{name: "report", codes: []int{2}, reason: []string{f.reason}, absent: []string{html},
		args: []string{"report", doc, "-o", html}})
	var out []view
	for _, v := range vs {
		if want(v.name) {
			out = append(out, v)
		}
	}
	return out
}

// TestNoGreenDocuments: a saved document that says it measured what it
// did not is refused by every view, naming the key.
func TestNoGreenDocuments(t *testing.T) {
	skipInVM(t)
	for _, f := range docFaults {
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			doc := writeFault(t, dir, f)
			for _, v := range docViews(dir, doc, f) {
				judge(t, "document: "+f.name, v, runView(t, v))
			}
		})
	}
}

// TestNoGreenTruncated: a document cut short (a full disk, a copy that
// stopped) is refused by every view, naming the file.
func TestNoGreenTruncated(t *testing.T) {
	skipInVM(t)
	dir := t.TempDir()
	raw, err := os.ReadFile(fixtures + "base.json")
	if err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(dir, "fault.json")
	if err := os.WriteFile(doc, raw[:len(raw)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	f := docFault{name: "truncated", reason: "fault.json: not JSON: unexpected end of JSON input"}
	for _, v := range docViews(dir, doc, f) {
		judge(t, "document: "+f.name, v, runView(t, v))
	}
}

// TestNoGreenThinCompare: a comparison whose every gated row took its
// percentile from too few samples on every run has no verdict: exit 3 in
// every format, each saying so, never a pass.
func TestNoGreenThinCompare(t *testing.T) {
	skipInVM(t)
	dir := t.TempDir()
	thin := func(src string) string {
		raw, err := os.ReadFile(fixtures + src)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		var lat []any
		for i, r := range doc["results"].([]any) {
			if r.(map[string]any)["kind"] == "latency" {
				res := resultOf(doc, i)
				res["samples"] = 500
				for _, run := range runsOf(doc, i) {
					run["samples"] = 50
				}
				lat = append(lat, r)
			}
		}
		doc["results"] = lat
		b, _ := json.Marshal(doc)
		path := filepath.Join(dir, src)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base, same := thin("base.json"), thin("same.json")
	for _, format := range []string{"table", "markdown", "json", "junit"} {
		v := view{name: "compare -o " + format, codes: []int{3}, reason: []string{"no verdict: every run of both sides took its lat.p99 from fewer latency samples than it needs"},
			args: []string{"compare", "--session-noise", "0", "--metrics", "lat.p99", "-o", format, base, same}}
		judge(t, "compare: every gated row thin", v, runView(t, v))
	}
}
