package main

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of compare under testdata/compare")

const fixtures = "testdata/compare/"

// golden compares got with testdata/compare/NAME, or rewrites it with
// -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(fixtures, name)
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}

// The fixtures hold one session a side, which decides nothing unless the
// lab vouches that its sessions do not drift: the tests of the runs'
// statistics and views say so with --session-noise 0; TestCompareSessions
// tests the sessions.

// TestCompareFormats: every output format of a comparison with a
// regression, against golden files; exit 1.
func TestCompareFormats(t *testing.T) {
	for _, format := range []string{"table", "markdown", "json", "junit"} {
		r := runHere(t, 30*time.Second, "compare", "--session-noise", "0", fixtures+"base.json", fixtures+"slower.json", "-o", format)
		if r.code != 1 {
			t.Errorf("-o %s: exit %d, want 1 (a regression): %s", format, r.code, r.stderr)
		}
		golden(t, "slower."+format+".golden", r.stdout)
	}
}

// TestCompareExitCodes: pass 0, regression 1, inconclusive 3 (1 with
// --strict), from files and from labels; points on one side only are
// listed, on stdout for table and markdown, on stderr for json and junit.
func TestCompareExitCodes(t *testing.T) {
	cases := []struct {
		golden string
		code   int
		args   []string
	}{
		{"same.table.golden", 0, []string{fixtures + "base.json", fixtures + "same.json"}},
		{"few.table.golden", 3, []string{fixtures + "few-base.json", fixtures + "few-new.json"}},
		{"", 1, []string{fixtures + "few-base.json", fixtures + "few-new.json", "--strict"}},
		{"", 3, []string{"--base-label", "base", "--label", "candidate", fixtures + "few-*.json"}},
		{"", 1, []string{"--base-label", "base", "--label", "candidate", fixtures + "base.json", fixtures + "slower.json"}},
		{"", 0, []string{fixtures + "base.json", fixtures + "slower.json", "--fail-on", "lat.p50>+15%,lat.p99>+15%"}},
		{"", 0, []string{fixtures + "base.json", fixtures + "slower.json", "--metrics", "bw,msgrate"}},
		{"subset.table.golden", 0, []string{fixtures + "base.json", fixtures + "subset.json"}},
		{"subset.markdown.golden", 0, []string{fixtures + "base.json", fixtures + "subset.json", "-o", "markdown"}},
	}
	for _, c := range cases {
		r := runHere(t, 30*time.Second, append([]string{"compare", "--session-noise", "0"}, c.args...)...)
		if r.code != c.code {
			t.Errorf("compare %s: exit %d, want %d: %s", strings.Join(c.args, " "), r.code, c.code, r.stderr)
		}
		if c.golden != "" {
			golden(t, c.golden, r.stdout)
		}
	}
	r := runHere(t, 30*time.Second, "compare", "--session-noise", "0", fixtures+"base.json", fixtures+"subset.json", "-o", "json")
	if r.code != 0 || !strings.Contains(r.stderr, "send_lat RC poll 64 B: only in the new side: not compared") ||
		strings.Contains(r.stdout, "only in the") {
		t.Errorf("-o json with one-sided points: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestCompareUnclean: runs whose port counters moved are pooled and
// counted by default, left out point by point with --clean-only (a point
// with no clean run on a side is not compared), and every format says so.
func TestCompareUnclean(t *testing.T) {
	r := runHere(t, 30*time.Second, "compare", "--session-noise", "0", fixtures+"base.json", fixtures+"unclean.json", "--clean-only")
	if r.code != 0 {
		t.Errorf("--clean-only: exit %d, want 0: %s", r.code, r.stderr)
	}
	golden(t, "unclean.table.golden", r.stdout)
	for _, format := range []string{"table", "markdown", "json", "junit"} {
		for _, c := range []struct {
			flag string
			want []string
		}{
			{"--allow-partial", []string{"(2 unclean)", "(10 unclean)", "12 unclean runs pooled",
				"write_lat RC poll 64 B: 2 of 10 new runs not clean, pooled with the others (--clean-only leaves them out)"}},
			{"--clean-only", []string{"n=8 in 1 session (2 unclean left out)", "2 unclean runs left out (--clean-only)",
				"write_lat RC poll 64 B: 2 of 10 new runs not clean, left out by --clean-only"}},
		} {
			r := runHere(t, 30*time.Second, "compare", "--session-noise", "0", fixtures+"base.json", fixtures+"unclean.json", "-o", format, c.flag)
			out := r.stdout + r.stderr
			if format == "json" {
				var doc struct {
					Unclean struct {
						Pooled  int `json:"pooled"`
						LeftOut int `json:"left_out"`
					} `json:"unclean_runs"`
				}
				if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
					t.Fatal(err)
				}
				if got := doc.Unclean.Pooled + doc.Unclean.LeftOut; got != map[string]int{"--allow-partial": 12, "--clean-only": 2}[c.flag] {
					t.Errorf("-o json %s: unclean_runs %+v", c.flag, doc.Unclean)
				}
				c.want = c.want[2:]
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("-o %s %s: output lacks %q", format, c.flag, w)
				}
			}
		}
	}
	if !strings.Contains(runHere(t, 30*time.Second, "compare", "--session-noise", "0", fixtures+"base.json", fixtures+"unclean.json", "--clean-only", "-o", "json").stderr,
		"tcp_lat TCP poll 64 B: all 10 new runs not clean and left out by --clean-only: not compared") {
		t.Errorf("a point without a clean run is not said to be left out")
	}
}

// TestCompareIgnoreCompletion: poll against event mode is compared when
// asked, each row and the differing metadata naming both modes.
func TestCompareIgnoreCompletion(t *testing.T) {
	r := runHere(t, 30*time.Second, "compare", "--session-noise", "0", fixtures+"base.json", fixtures+"event.json", "--ignore-param", "completion")
	for _, w := range []string{"| write_lat RC 64 B completion=poll->event ", "| tcp_bw TCP 64 KiB completion=poll->event ",
		"param completion: poll -> event", "of 24 comparisons"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if r.code != 0 {
		t.Errorf("exit %d, want 0: %s\n%s", r.code, r.stderr, r.stdout)
	}
}

// TestCompareOutputFileAndPlot: --output-file holds what standard output
// would; --plot writes the whiskers and the base-against-new spectra.
func TestCompareOutputFileAndPlot(t *testing.T) {
	dir := t.TempDir()
	out, plots := filepath.Join(dir, "summary.md"), filepath.Join(dir, "plots")
	r := runHere(t, 60*time.Second, "compare", "--session-noise", "0", fixtures+"base.json", fixtures+"slower.json", "-o", "markdown", "--output-file", out, "--plot", plots)
	if r.code != 1 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "slower.markdown.golden", string(b))
	want := []string{"comparison", "spectrum_write_lat_RC_poll_64B", "spectrum_write_lat_RC_poll_4KiB",
		"spectrum_tcp_lat_TCP_poll_64B", "spectrum_tcp_lat_TCP_poll_4KiB"}
	assertFiles(t, plots, want)
	if texts := svgTexts(t, filepath.Join(plots, "comparison.svg")); !hasText(texts, "write_lat RC poll 64 B lat.p50") ||
		!hasText(texts, "tcp_bw TCP poll 64 KiB msgrate") {
		t.Errorf("comparison.svg lacks the rows' labels: %q", texts)
	}
	if texts := svgTexts(t, filepath.Join(plots, "spectrum_write_lat_RC_poll_64B.svg")); !hasText(texts, "base (max") || !hasText(texts, "new (max") {
		t.Errorf("spectrum lacks the base and new curves: %q", texts)
	}
}

// TestCompareBadInput: each bad input is refused with a clear message,
// exit 2, and nothing written: no output file, no chart directory.
func TestCompareBadInput(t *testing.T) {
	base, same := fixtures+"base.json", fixtures+"same.json"
	cases := []struct {
		want string
		args []string
	}{
		{`base: testdata/compare/notrdma.json: not an rdma-bench document: tool.name is "fio", want "rdma-bench"`, []string{fixtures + "notrdma.json", same}},
		{"new: testdata/compare/schema3.json: schema_version 3 is newer than this rdma-bench reads (2)", []string{base, fixtures + "schema3.json"}},
		{"write_bw RC poll 64 KiB: qps is 1 in the base (testdata/compare/base.json) and 4 in the new side (testdata/compare/qps4.json): " +
			"points measured with other parameters are not compared; --ignore-param qps compares them anyway", []string{base, fixtures + "qps4.json"}},
		{"new: testdata/compare/partial.json: results[0] (write_lat RC poll 64 B): run 3 is partial (interrupted: the peer stopped answering): " +
			"a run cut short is not compared; allow it with --allow-partial", []string{base, fixtures + "partial.json"}},
		{`--fail-on: threshold "lat.p50>5": want a percentage such as +5%`, []string{base, same, "--fail-on", "lat.p50>5"}},
		{`-o xml: unknown format "xml"`, []string{base, same, "-o", "xml"}},
		{`--metrics "lat.p42": unknown metric "lat.p42": choose from lat.p50, lat.p99`, []string{base, same, "--metrics", "lat.p42"}},
		{`ignore parameter "iterations": not a measured parameter`, []string{base, same, "--ignore-param", "iterations"}},
		{"no point in common: the base has completion=poll, the new side completion=event (write_lat RC 64 B); add --ignore-param completion to compare them",
			[]string{base, fixtures + "event.json"}},
		{"want BASE and NEW (files, directories or quoted glob patterns), or --base-label and --label; got 1 argument(s)", []string{base}},
		{"--base-label and --label go together", []string{"--base-label", "base", base, same}},
		{`--base-label and --label both name "base"`, []string{"--base-label", "base", "--label", "base", base, same}},
		{`--label: no document labelled "fw-99" among the 2 read: labels found: base, candidate`, []string{"--base-label", "base", "--label", "fw-99", base, same}},
		{"new: testdata/compare/nosuch.json: no such file or directory", []string{base, fixtures + "nosuch.json"}},
		{`new: pattern "testdata/compare/nosuch-*.json" matches no file`, []string{base, fixtures + "nosuch-*.json"}},
		{"nothing to compare: no point has figures of cpu.gb on both sides", []string{fixtures + "few-base.json", fixtures + "subset.json", "--metrics", "cpu.gb"}},
		{"unknown flag: --frobnicate", []string{base, same, "--frobnicate"}},
	}
	for _, c := range cases {
		dir := t.TempDir()
		out, plots := filepath.Join(dir, "out.txt"), filepath.Join(dir, "plots")
		r := runHere(t, 30*time.Second, append([]string{"compare", "--output-file", out, "--plot", plots}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("compare %s: exit %d, stderr %q, stdout %q; want exit 2 and %q", strings.Join(c.args, " "), r.code, r.stderr, r.stdout, c.want)
		}
		assertEmpty(t, dir)
	}
	// An unwritable output file or chart directory: refused before
	// anything is written.
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		want string
		args []string
	}{
		{"--output-file " + file + "/out.txt: cannot create a file in directory " + file + ": not a directory",
			[]string{"--output-file", file + "/out.txt", "--plot", filepath.Join(dir, "plots")}},
		{"chart directory " + file + ": not a directory", []string{"--output-file", filepath.Join(dir, "out.txt"), "--plot", file}},
	} {
		r := runHere(t, 30*time.Second, append([]string{"compare", base, same}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
		assertFiles(t, dir, nil, "file")
	}
}

// assertFiles checks that dir holds NAME.svg and NAME.png for every name
// and the extra files, and nothing else.
func assertFiles(t *testing.T, dir string, names []string, extra ...string) {
	t.Helper()
	want := map[string]bool{}
	for _, n := range names {
		want[n+".svg"], want[n+".png"] = true, true
	}
	for _, e := range extra {
		want[e] = true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !want[e.Name()] {
			t.Errorf("%s: unexpected %s", dir, e.Name())
		}
		delete(want, e.Name())
	}
	for n := range want {
		t.Errorf("%s: %s missing", dir, n)
	}
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	assertFiles(t, dir, nil)
}

// svgTexts parses an SVG document and returns the text of its <text>
// elements.
func svgTexts(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	var out []string
	depth := 0
	var cur strings.Builder
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v", path, err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			if tk.Name.Local == "text" {
				depth++
			}
		case xml.EndElement:
			if tk.Name.Local == "text" {
				depth--
				out = append(out, cur.String())
				cur.Reset()
			}
		case xml.CharData:
			if depth > 0 {
				cur.Write(tk)
			}
		}
	}
	return out
}

func hasText(texts []string, s string) bool {
	for _, x := range texts {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

// TestCompareSessions: documents are sessions. One session a side decides
// nothing, in every format, and says what would; three sessions a side
// of the same firmware whose write_lat 64 B drifts by half a percent do
// not fail; one session 10% slower against three steady ones does.
func TestCompareSessions(t *testing.T) {
	dir := fixtures + "sessions/"
	for _, format := range []string{"table", "markdown", "json", "junit"} {
		r := runHere(t, 30*time.Second, "compare", dir+"fw-A-1.json", dir+"fw-C-1.json", "-o", format)
		if r.code != 3 || !strings.Contains(r.stdout, "one session a side") || !strings.Contains(r.stdout+r.stderr, "--session-noise") {
			t.Errorf("-o %s, one session a side: exit %d, want 3 and the reason:\n%s", format, r.code, r.stdout)
		}
	}
	r := runHere(t, 30*time.Second, "compare", "--base-label", "fw-A", "--label", "fw-B", dir)
	if r.code == 1 || !strings.Contains(r.stdout, "n=15 in 3 sessions") || !strings.Contains(r.stdout, "over sessions where there are three or more") {
		t.Errorf("A/A in three sessions a side: exit %d, want no regression, over sessions:\n%s", r.code, r.stdout)
	}
	r = runHere(t, 30*time.Second, "compare", "--base-label", "fw-A", "--label", "fw-C", dir, "--fail-on", "lat.p50>+5%")
	if r.code != 1 || !regexp.MustCompile(`(?m)^\| write_lat RC poll 64 B +\| lat.p50 \(us\) +\|.*n=15 in 3 sessions.*n=5 in 1 session .*\| slower +\| fail`).MatchString(r.stdout) {
		t.Errorf("10%% slower against three sessions: exit %d, want 1 and write_lat 64 B failing:\n%s", r.code, r.stdout)
	}
	r = runHere(t, 30*time.Second, "compare", "--base-label", "fw-A", "--label", "fw-C", dir, "-o", "json")
	var doc struct {
		Rows []struct {
			Point, Method string
			Spread        *float64 `json:"session_spread_pct"`
			Base          struct{ Sessions int }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Rows) == 0 || doc.Rows[0].Method != "sessions" ||
		doc.Rows[0].Base.Sessions != 3 || doc.Rows[0].Spread == nil {
		t.Errorf("-o json over sessions: %+v, %v", doc.Rows, err)
	}
	// The lab's session noise decides one session a side.
	r = runHere(t, 30*time.Second, "compare", dir+"fw-A-1.json", dir+"fw-C-1.json", "--session-noise", "1%", "--fail-on", "lat.p50>+5%")
	if r.code != 1 || !strings.Contains(r.stdout, "widened by a session noise of 1%") {
		t.Errorf("--session-noise 1%%: exit %d, want 1:\n%s", r.code, r.stdout)
	}
	for _, bad := range []string{"100", "-1", "x"} {
		if r := runHere(t, 30*time.Second, "compare", dir+"fw-A-1.json", dir+"fw-C-1.json", "--session-noise", bad); r.code != 2 ||
			!strings.Contains(r.stderr, "want a percentage from 0 to below 100") {
			t.Errorf("--session-noise %s: exit %d, %q", bad, r.code, r.stderr)
		}
	}
}

// TestHistory: twenty nightly sessions whose write_lat 64 B got 10% slower
// three sessions ago: the step is found, named and fails (exit 1) in the
// table and the JSON, and drawn; bad input is exit 2 with nothing written.
func TestHistory(t *testing.T) {
	dir := fixtures + "history/"
	r := runHere(t, time.Minute, "history", dir)
	if r.code != 1 || !strings.Contains(r.stdout, "write_lat RC poll 64 B lat.p50: step at session 18 (2026-11-18 02:00)") ||
		!strings.HasPrefix(finalLine(r.stdout), "history regression (exit 1)") {
		t.Errorf("history: exit %d, want 1 and the step named last:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	plots := filepath.Join(t.TempDir(), "plots")
	r = runHere(t, time.Minute, "history", dir, "-o", "json", "--plot", plots)
	var res struct {
		ExitCode int `json:"exit_code"`
		Series   []struct {
			Point   string
			Outcome string
			Steps   []struct{ Index int }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 1 || res.ExitCode != 1 || res.Series[0].Outcome != "regression" ||
		len(res.Series[0].Steps) != 1 || res.Series[0].Steps[0].Index != 17 {
		t.Errorf("-o json: exit %d, %+v, %v", r.code, res, err)
	}
	assertFiles(t, plots, []string{"history_write_lat_RC_poll_64B_lat.p50", "history_write_lat_RC_poll_4KiB_lat.p50",
		"history_tcp_lat_TCP_poll_64B_lat.p50", "history_tcp_lat_TCP_poll_4KiB_lat.p50", "history_write_bw_RC_poll_64KiB_bw",
		"history_tcp_bw_TCP_poll_64KiB_bw"})
	// The sessions before the step: steady, every series looked at.
	var before []string
	for i := 1; i <= 17; i++ {
		before = append(before, fmt.Sprintf("%snight-%02d.json", dir, i))
	}
	if r := runHere(t, time.Minute, append([]string{"history"}, before...)...); r.code != 0 || !strings.HasPrefix(finalLine(r.stdout), "history steady (exit 0): 6 of 6 series") {
		t.Errorf("before the step: exit %d:\n%s", r.code, r.stdout)
	}
	if r := runHere(t, time.Minute, "history", dir+"night-01.json", dir+"night-02.json", dir+"night-03.json"); r.code != 3 ||
		!strings.Contains(r.stdout, `not "steady"`) {
		t.Errorf("three sessions: exit %d, want 3:\n%s", r.code, r.stdout)
	}
	out := filepath.Join(t.TempDir(), "h.txt")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{dir + "night-01.json"}, "the documents hold one session"},
		{[]string{dir, "--alpha", "0.7"}, "--alpha 0.7: want a level between 0 and 0.5"},
		{[]string{dir, "--permutations", "5"}, "--permutations 5: want 19 to 100000"},
		{[]string{dir, "--recent", "0"}, "--recent 0: want at least 1 session"},
		{[]string{dir, "--min-segment", "1"}, "--min-segment 1: want at least 2"},
		{[]string{dir, "--fail-on", "lat.p50>5%"}, "--fail-on"},
		{[]string{dir, "-o", "csv"}, "-o csv: want table or json"},
		{[]string{"/nonexistent"}, "/nonexistent"},
		{nil, "name the documents of the history"},
	} {
		r := runHere(t, time.Minute, append([]string{"history", "--output-file", out}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("history %s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("history %s: wrote %s", strings.Join(c.args, " "), out)
		}
	}
}

// finalLine is the last line of s, trailing space dropped.
func finalLine(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return l[len(l)-1]
}
