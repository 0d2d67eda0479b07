package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// gateFixture is a saved gate of tcp_lat:64 and tcp_bw:64K whose
// candidate ran with -e: the latency row failed, the bandwidth row ended
// undecided, and three of its runs are marked not clean.
const gateFixture = "testdata/gate/fail-undecided.json"

// TestPlotGate: plot draws a gate document's rows' changes against their
// thresholds, the failed row as a regression and the undecided one as
// inconclusive.
func TestPlotGate(t *testing.T) {
	dir := t.TempDir()
	r := runHere(t, 60*time.Second, "plot", gateFixture, "--dir", dir)
	if r.code != 0 || !strings.Contains(r.stderr, "wrote 1 charts") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	assertFiles(t, dir, []string{"gate"})
	texts := svgTexts(t, filepath.Join(dir, "gate.svg"))
	for _, want := range []string{"tcp_lat 64 B lat.p50", "tcp_bw 64 KiB bw", "+129.3%", "regression", "inconclusive", "threshold",
		"interval (each row's confidence)", display.UncleanLegend} {
		if !hasText(texts, want) {
			t.Errorf("gate chart: no text %q in %q", want, texts)
		}
	}
}

// TestReportGate: report writes a gate document's table, notes and
// summary as the gate printed them, and its chart.
func TestReportGate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "gate.html")
	r := runHere(t, 60*time.Second, "report", gateFixture, "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	p := readPage(t, out)
	if p.figures != 1 || p.scripts != 0 {
		t.Errorf("%d figures, %d scripts; want the gate's chart, no script", p.figures, p.scripts)
	}
	if !strings.Contains(strings.Join(p.headers, "|"), "point|metric|pairs|base median|candidate median|pair spread (p10, p90)|change [CI]|CI level|decision") {
		t.Errorf("no gate table header in %q", p.headers)
	}
	for _, want := range []string{"rdma-bench gate: fail", "paired gate, thresholds lat.p50>+5%,bw<-5%", "+129.3% [+48.4%, +157.9%]",
		"undecided after 12 pairs, not \"no regression\"", "3 of 24 runs not clean (the port counters moved: retransmissions)",
		"gate fail (exit 1): tcp_lat 64 B lat.p50 +129.3%", "-e"} {
		if !strings.Contains(p.text, want) {
			t.Errorf("report lacks %q:\n%s", want, p.text)
		}
	}
}

// TestPlotGateInDirectory: a gate document that a directory holds is
// left out of the run documents' views, with a note (TestPlotReportAloneRefusals
// has the refusals of one named).
func TestPlotGateInDirectory(t *testing.T) {
	r := runHere(t, 60*time.Second, "plot", "testdata/gate", "--dir", t.TempDir())
	if r.code != 2 || !strings.Contains(r.stderr, "left out: a gate document") || !strings.Contains(r.stderr, "named alone") {
		t.Errorf("plot of a directory holding a gate document: exit %d, stderr %q", r.code, r.stderr)
	}
}
