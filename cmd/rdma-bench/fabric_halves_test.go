//go:build cgo

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
)

// TestFabricHalvesTotals: four TCP ranks by hand sweep the halves
// pattern (0->2 1->3 at once, then 2->0 3->1) with tcp_bw; rank 0's table
// prints each round's totals after the matrices, and each equals the sum
// of the saved document's pair figures, summed here apart from
// fabric.RoundTotals. The HTML report of the saved document shows the
// same lines.
func TestFabricHalvesTotals(t *testing.T) {
	dir := t.TempDir()
	args := []string{"tcp_bw", "-n", "300", "--pattern", "halves", "--coordinator", "127.0.0.1:" + testenv.FreePort(t), "--advertise", "127.0.0.1",
		"--threshold", "1000000", "--pair-timeout", "30s"}
	ps := startRanks(t, 4, []int{1, 2, 3}, args...)
	rank0 := startRank(t, cleanEnv(), slices.Concat(args, []string{"--rank", "0", "--world-size", "4",
		"--output-file", filepath.Join(dir, "table.txt"), "--save", "--results-dir", dir})...)
	rank0.wait(t, 3*time.Minute)
	if rank0.code != 0 {
		t.Fatalf("rank 0: exit %d:\n%s", rank0.code, rank0.stderr.String())
	}
	for i, p := range ps {
		p.wait(t, time.Minute)
		if p.code != 0 {
			t.Errorf("rank %d: exit %d: %s", i+1, p.code, p.stderr.String())
		}
	}
	d := readSavedFabric(t, dir, "")
	if d.Schedule.Pattern != "halves" || d.Schedule.Rounds != 2 || d.Schedule.Pairs != 4 || len(d.Pairs) != 4 || len(d.Failed()) != 0 {
		t.Fatalf("document: %+v", d.Document)
	}
	table, err := os.ReadFile(filepath.Join(dir, "table.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{fabric.RoundTotalsHeading}
	for round, pairs := range map[int]string{1: "0->2 1->3", 2: "2->0 3->1"} {
		var bw, rate float64
		unclean := false
		for _, p := range d.Pairs {
			if p.Round != round {
				continue
			}
			if fmt.Sprintf("%d->%d", p.Src, p.Dst) != strings.Fields(pairs)[p.Src%2] {
				t.Errorf("round %d: pair %d->%d, want %s", round, p.Src, p.Dst, pairs)
			}
			b, ok1 := p.Figures.Get("tcp_bw.bw_gbps")
			r, ok2 := p.Figures.Get("tcp_bw.msg_rate_mpps")
			if !ok1 || !ok2 {
				t.Fatalf("pair %d->%d: figures %v", p.Src, p.Dst, p.Figures)
			}
			bw, rate = bw+b, rate+r
			unclean = unclean || d.Matrix("tcp_bw.bw_gbps").Caveat(p.Src, p.Dst)&fabric.CaveatUnclean != 0
		}
		want := fmt.Sprintf("  round %d (2 pairs at once, %s): tcp_bw %s, %s in all", round, pairs,
			display.Marked(display.Significant(bw, 4)+" Gb/s", false, unclean), display.Marked(display.Significant(rate, 4)+" Mpps", false, unclean))
		if !strings.Contains(string(table), "\n"+want+"\n") {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
		lines = append(lines, want)
	}
	t.Logf("rank 0:\n%s", table)
	at := strings.Index(string(table), fabric.RoundTotalsHeading)
	if at < strings.Index(string(table), "tcp_bw.bw_gbps: rows measure") || at > strings.Index(string(table), "no failed pair, no outlier") {
		t.Errorf("totals not between the matrices and the findings:\n%s", table)
	}
	out := filepath.Join(dir, "fabric.html")
	saved := savedFabric(dir)
	if r := runHere(t, time.Minute, "report", saved[0], "-o", out); r.code != 0 {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
	}
	page := readPage(t, out)
	for _, line := range lines {
		if !strings.Contains(page.text, strings.TrimSpace(line)) {
			t.Errorf("report lacks %q:\n%s", strings.TrimSpace(line), page.text)
		}
	}
}
