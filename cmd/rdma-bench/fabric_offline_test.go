package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// fabricFixture is the sweep of issue 37 as saved: 3 ranks, every pair
// measured, no suspect; every write_bw run not clean (its counters saw
// packet_seq_err), every write_lat run of 50 samples (its p99 thin).
const fabricFixture = "testdata/fabric/unclean.json"

// fabricCharts are the fixture's heat maps, one per metric.
var fabricCharts = []string{"fabric-write_bw-bw_gbps", "fabric-write_bw-msg_rate_mpps", "fabric-write_lat-p50_us", "fabric-write_lat-p99_us"}

// TestPlotFabric: plot draws a fabric document's heat maps, as rank 0's
// --plot does, with the matrices' marks, the unclean cells' legend entry
// and the footnotes in the caption.
func TestPlotFabric(t *testing.T) {
	dir := t.TempDir()
	r := runHere(t, 60*time.Second, "plot", fabricFixture, "--dir", dir)
	if r.code != 0 || !strings.Contains(r.stderr, "wrote 4 charts") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	assertFiles(t, dir, fabricCharts)
	bw := svgTexts(t, filepath.Join(dir, "fabric-write_bw-bw_gbps.svg"))
	for _, want := range []string{"96.5 " + display.UncleanMark, display.UncleanLegend, display.UncleanMark + " " + display.UncleanWhat + ": the device's error"} {
		if !hasText(bw, want) {
			t.Errorf("write_bw heat map: no text %q in %q", want, bw)
		}
	}
	p99 := svgTexts(t, filepath.Join(dir, "fabric-write_lat-p99_us.svg"))
	if !hasText(p99, "3.50"+display.ThinMark) || !hasText(p99, display.ThinMark+" a percentile") || hasText(p99, display.UncleanWhat) {
		t.Errorf("write_lat p99 heat map: want thin marks and their note alone: %q", p99)
	}
	if p50 := svgTexts(t, filepath.Join(dir, "fabric-write_lat-p50_us.svg")); hasText(p50, display.ThinMark) || hasText(p50, display.UncleanWhat) {
		t.Errorf("write_lat p50 heat map of 50 clean samples: want no mark: %q", p50)
	}
}

// TestReportFabric: report writes a fabric document's matrices as rank
// 0 prints them (marks and footnotes), its heat maps and its findings.
func TestReportFabric(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fabric.html")
	r := runHere(t, 60*time.Second, "report", fabricFixture, "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	p := readPage(t, out)
	if p.figures != len(fabricCharts) || p.scripts != 0 {
		t.Errorf("%d figures, %d scripts; want %d heat maps, no script", p.figures, p.scripts, len(fabricCharts))
	}
	if !strings.Contains(strings.Join(p.headers, "|"), `src\dst|0|1|2`) {
		t.Errorf("no matrix header in %q", p.headers)
	}
	for _, want := range []string{
		"rdma-bench fabric: 3 ranks, pattern pairs", "host-b", "write_bw bandwidth [Gb/s]",
		" 96.50 " + display.UncleanMark + " ", " 3.500" + display.ThinMark + " ", display.UncleanNote, display.ThinNote,
		"counters: not clean: local: packet_seq_err +3 packets, local_ack_timeout_err +1",
		"no failed pair, no outlier (threshold 20% worse than the median) in 6 pairs; 6 of 6 write_bw pairs not clean, 6 of 6 write_lat pairs thin",
	} {
		if !strings.Contains(p.text, want) {
			t.Errorf("report lacks %q:\n%s", want, p.text)
		}
	}
}

// TestPlotReportAloneRefusals: a fabric or gate document is viewed alone,
// with neither --charts nor --base; the refusals are bad input (exit 2)
// and write nothing.
func TestPlotReportAloneRefusals(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.html")
	for _, doc := range []string{fabricFixture, gateFixture} {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"plot", doc, fixtures + "base.json", "--dir", dir}, "viewed alone"},
			{[]string{"plot", doc, "--charts", "latency", "--dir", dir}, "--charts"},
			{[]string{"report", doc, "--base", fixtures + "base.json", "-o", out}, "--base"},
			{[]string{"report", doc, doc, "-o", out}, "viewed alone"},
		} {
			r := runHere(t, 60*time.Second, c.args...)
			if r.code != 2 || !strings.Contains(r.stderr, c.want) {
				t.Errorf("%q: exit %d, stderr %q; want 2 saying %q", c.args, r.code, r.stderr, c.want)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("wrote %d files", len(entries))
	}
}
