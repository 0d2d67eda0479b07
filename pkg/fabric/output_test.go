package fabric

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteTableGolden(t *testing.T) {
	doc := handDoc(t)
	var b bytes.Buffer
	if err := WriteTable(&b, doc, []string{"write_lat.p50_us", "write_bw.bw_gbps"}); err != nil {
		t.Fatal(err)
	}
	golden(t, "table.golden", b.Bytes())
}

// TestWriteTablePartialAndLarge: a partial document says why first; beyond
// 64 members the table names the first 64 and leaves the matrices out.
func TestWriteTablePartialAndLarge(t *testing.T) {
	doc := handDoc(t)
	doc.Status = StatusPartial
	for i := len(doc.Members); i < 70; i++ {
		doc.Members = append(doc.Members, Member{Rank: i, Hostname: fmt.Sprintf("host-%d", i), Addr: "x:1"})
	}
	var b bytes.Buffer
	if err := WriteTable(&b, doc, []string{"write_lat.p50_us"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"PARTIAL: 6 of 6 scheduled pairs measured or failed\n",
		"  rank 3: host-3, -, listening on x:1\n",
		"  ... 6 more ranks\n",
		"\nwrite_lat p50 latency [us]\nwrite_lat.p50_us: a 70 x 70 matrix: see the JSON document (-o json, --save) or --plot\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "rank 64:") {
		t.Errorf("rank 64 listed:\n%s", out)
	}
}

func TestPartialReason(t *testing.T) {
	doc := handDoc(t)
	if got, want := PartialReason(doc), "6 of 6 scheduled pairs measured or failed"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	doc.Reason = "interrupted: terminated received"
	if got := PartialReason(doc); got != doc.Reason {
		t.Errorf("got %q, want the document's reason", got)
	}
}

func TestSummary(t *testing.T) {
	doc := handDoc(t)
	want := "1 of 6 pairs failed, 1 outliers of 3 suspects (threshold 20%), 1 re-measurements failed"
	if got := Summary(doc); got != want || ExitStatus(doc) != 1 {
		t.Errorf("got %q (exit status %d), want %q", got, ExitStatus(doc), want)
	}
}

// TestSave: the saved document is the JSON one, named by its start, and
// a second save beside it never replaces the first.
func TestSave(t *testing.T) {
	doc := handDoc(t)
	dir := t.TempDir()
	var first string
	for i := range 2 {
		path, err := Save(dir, doc)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = path
			if want := filepath.Join(dir, "rdma-bench-20250102-030405-fabric.json"); path != want {
				t.Errorf("saved %s, want %s", path, want)
			}
		} else if path == first {
			t.Errorf("second save replaced %s", path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var j bytes.Buffer
		if err := WriteJSON(&j, doc); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, j.Bytes()) {
			t.Errorf("%s is not the JSON document", path)
		}
	}
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Save(filepath.Join(notDir, "sub"), doc); err == nil || !strings.HasPrefix(err.Error(), "save the fabric document: ") {
		t.Errorf("saving under a file: %v", err)
	}
}

// TestOutputWrite: saved first (logged), then the format to the file.
func TestOutputWrite(t *testing.T) {
	doc := handDoc(t)
	dir := t.TempDir()
	var log bytes.Buffer
	o := &Output{Format: "json", File: filepath.Join(dir, "out.json"), Save: true, ResultsDir: dir, Log: &log}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	if err := o.Write(doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(log.String(), "saved "+dir) {
		t.Errorf("log %q", log.String())
	}
	var back Document
	if b, err := os.ReadFile(o.File); err != nil || json.Unmarshal(b, &back) != nil || len(back.Pairs) != len(doc.Pairs) {
		t.Errorf("output file: %v", err)
	}
	bad := &Output{Format: "table", Save: true, ResultsDir: filepath.Join(o.File, "sub")}
	if err := bad.Check(); err == nil || !strings.HasPrefix(err.Error(), "--results-dir: ") {
		t.Errorf("check of a --results-dir under a file: %v", err)
	}
}

func TestDescribeMetric(t *testing.T) {
	for _, c := range []struct{ metric, what, unit string }{
		{MatrixMetric("write_lat", true), "write_lat p50 latency", "us"},
		{"send_lat.p99_us", "send_lat p99 latency", "us"},
		{MatrixMetric("tcp_bw", false), "tcp_bw bandwidth", "Gb/s"},
		{"write_bw.msg_rate_mpps", "write_bw message rate", "Mpps"},
		{"other.thing_us", "other.thing_us", ""},
	} {
		if what, unit := DescribeMetric(c.metric); what != c.what || unit != c.unit {
			t.Errorf("%s: %q [%s], want %q [%s]", c.metric, what, unit, c.what, c.unit)
		}
		if _, err := MetricDirection(c.metric); err != nil && c.unit != "" {
			t.Errorf("%s: %v", c.metric, err)
		}
	}
}

// TestWriteSweepPlan: a short schedule lists every round, a long one the
// first three, a round of many pairs on lines of at most 100 columns.
func TestWriteSweepPlan(t *testing.T) {
	for _, c := range []struct{ n, lines int }{{4, 2 + 6}, {64, 2 + 3*3 + 1}, {1024, 2 + 3*51 + 1}} {
		rounds, err := Schedule(PatternPairs, c.n)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteSweepPlan(&b, PatternPairs, rounds, PairTime{time.Second, "--pair-time"}, 0); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != c.lines || lines[0] != "per pair: 1s (--pair-time)" {
			t.Errorf("%d hosts: %d lines, want %d:\n%s", c.n, len(lines), c.lines, b.String())
		}
		for i, l := range lines[2:] {
			if len(l) > planWidth {
				t.Errorf("%d hosts: line %d has %d columns: %s", c.n, i+3, len(l), l)
			}
		}
	}
}

func TestPlanBound(t *testing.T) {
	rounds, err := Schedule(PatternPairs, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Plan(rounds, time.Minute, 0).Bound(), "6 rounds, 6 pairs (at most 1 a round), at most 6 x 1m0s = 6m0s"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
