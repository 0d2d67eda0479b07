//go:build cgo

package main

import (
	"encoding/json"
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

// TestFabricIncastTotals: four TCP ranks by hand sweep the incast
// pattern with tcp_bw for 1 s: in round r the three
// other ranks measure against rank r-1 at once. Every rank registers
// three listeners; every pair is measured in its receiver's round; the
// three senders' tcp_bw runs overlap in time (the receiver served them
// at once, one one-shot server a listener, or two of them would have
// been told it is busy); rank 0's table prints each round's tcp_bw sum,
// equal to the saved document's pair figures summed here apart from
// fabric.RoundTotals, and the HTML report of the saved document shows the
// same lines.
func TestFabricIncastTotals(t *testing.T) {
	dir := t.TempDir()
	args := []string{"tcp_bw", "-D", "1", "--pattern", "incast", "--coordinator", "127.0.0.1:" + testenv.FreePort(t), "--advertise", "127.0.0.1",
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
	if d.Schedule.Pattern != "incast" || d.Schedule.Rounds != 4 || d.Schedule.Pairs != 12 || len(d.Pairs) != 12 || len(d.Failed()) != 0 {
		t.Fatalf("document: %+v", d.Document)
	}
	for _, m := range d.Members {
		if len(m.Listeners) != 3 || m.Listeners[0] != m.Addr || len(slices.Compact(slices.Sorted(slices.Values(m.Listeners)))) != 3 {
			t.Errorf("%s: listeners %q, want 3 distinct, %s first", m, m.Listeners, m.Addr)
		}
	}
	table, err := os.ReadFile(filepath.Join(dir, "table.txt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rank 0:\n%s", table)
	var lines []string
	for round := 1; round <= 4; round++ {
		dst := round - 1
		var bw, rate float64
		var names []string
		unclean := false
		var last time.Time // the latest start, then the earliest end
		first := time.Time{}
		for _, p := range d.Pairs {
			if p.Round != round {
				continue
			}
			if p.Dst != dst {
				t.Errorf("round %d: pair %d->%d, want every sender -> %d", round, p.Src, p.Dst, dst)
			}
			names = append(names, fmt.Sprintf("%d->%d", p.Src, p.Dst))
			b, ok1 := p.Figures.Get("tcp_bw.bw_gbps")
			r, ok2 := p.Figures.Get("tcp_bw.msg_rate_mpps")
			if !ok1 || !ok2 {
				t.Fatalf("pair %d->%d: figures %v", p.Src, p.Dst, p.Figures)
			}
			bw, rate = bw+b, rate+r
			unclean = unclean || d.Matrix("tcp_bw.bw_gbps").Caveat(p.Src, p.Dst)&fabric.CaveatUnclean != 0
			start, end := bwWindow(t, p)
			if start.After(last) {
				last = start
			}
			if first.IsZero() || end.Before(first) {
				first = end
			}
		}
		if len(names) != 3 {
			t.Fatalf("round %d: pairs %v, want 3", round, names)
		}
		if !last.Before(first) {
			t.Errorf("round %d: the senders' tcp_bw runs do not overlap: the last began at %s, the first ended at %s", round, last.Format(time.StampMicro), first.Format(time.StampMicro))
		}
		want := fmt.Sprintf("  round %d (3 pairs at once, %s): tcp_bw %s, %s in all", round, strings.Join(names, " "),
			display.Marked(display.Significant(bw, 4)+" Gb/s", false, unclean), display.Marked(display.Significant(rate, 4)+" Mpps", false, unclean))
		if !strings.Contains(string(table), "\n"+want+"\n") {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
		lines = append(lines, strings.TrimSpace(want))
	}
	if !strings.Contains(string(table), "\n"+fabric.RoundTotalsHeading+"\n") {
		t.Errorf("table without the totals heading:\n%s", table)
	}
	out := filepath.Join(dir, "fabric.html")
	if r := runHere(t, time.Minute, "report", savedFabric(dir)[0], "-o", out); r.code != 0 {
		t.Fatalf("report: exit %d: %s", r.code, r.stderr)
	}
	page := readPage(t, out)
	for _, line := range lines {
		if !strings.Contains(page.text, line) {
			t.Errorf("report lacks %q:\n%s", line, page.text)
		}
	}
}

// bwWindow is when p's tcp_bw run measured: its run's start and that
// plus its timed part, from the pair's result document.
func bwWindow(t *testing.T, p fabric.PairOutcome) (time.Time, time.Time) {
	t.Helper()
	var res struct {
		Results []struct {
			Workload string `json:"workload"`
			Runs     []struct {
				StartedAt time.Time `json:"started_at"`
				ElapsedNS int64     `json:"elapsed_ns"`
			} `json:"runs"`
		} `json:"results"`
	}
	if err := json.Unmarshal(p.Result, &res); err != nil {
		t.Fatalf("pair %d->%d: result: %v", p.Src, p.Dst, err)
	}
	for _, r := range res.Results {
		if r.Workload == "tcp_bw" && len(r.Runs) == 1 && !r.Runs[0].StartedAt.IsZero() && r.Runs[0].ElapsedNS > 0 {
			return r.Runs[0].StartedAt, r.Runs[0].StartedAt.Add(time.Duration(r.Runs[0].ElapsedNS))
		}
	}
	t.Fatalf("pair %d->%d: no tcp_bw run with a start and a length in %s", p.Src, p.Dst, p.Result)
	return time.Time{}, time.Time{}
}
