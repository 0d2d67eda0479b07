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

// TestFabricRoundTotals: four ranks by hand sweep a pattern whose rounds
// hold several pairs at once, with write_bw for 3 s where there is a
// device, else tcp_bw for 1 s: halves (0->2
// 1->3, then 2->0 3->1) and incast (in round r the three other ranks
// into rank r-1, each rank registering three listeners). Every pair is
// measured in its round; the round's runs overlap in time (for
// incast: the receiver served them at once, one one-shot server a
// listener, or two would have been told it is busy); rank 0's table
// prints each round's totals between the matrices and the findings, each
// equal to the saved document's pair figures summed here apart from
// fabric.RoundTotals; the HTML report of the saved document shows the
// same lines.
func TestFabricRoundTotals(t *testing.T) {
	wl, secs := "tcp_bw", "1"
	if len(testenv.Devices()) > 0 {
		wl, secs = "write_bw", "3" // the runs' set-up takes longer in the emulator
	}
	for _, c := range []struct {
		pattern   string
		rounds    [][]string // each round's pairs, by source
		listeners int        // each rank's listeners when more than one
	}{
		{"halves", [][]string{{"0->2", "1->3"}, {"2->0", "3->1"}}, 0},
		{"incast", [][]string{{"1->0", "2->0", "3->0"}, {"0->1", "2->1", "3->1"}, {"0->2", "1->2", "3->2"}, {"0->3", "1->3", "2->3"}}, 3},
	} {
		t.Run(c.pattern, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{wl, "-D", secs, "--pattern", c.pattern, "--coordinator", "127.0.0.1:" + testenv.FreePort(t), "--advertise", "127.0.0.1",
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
			pairs := len(c.rounds) * len(c.rounds[0])
			if d.Schedule.Pattern != c.pattern || d.Schedule.Rounds != len(c.rounds) || d.Schedule.Pairs != pairs || len(d.Pairs) != pairs || len(d.Failed()) != 0 {
				t.Fatalf("document: %+v", d.Document)
			}
			for _, m := range d.Members {
				if len(m.Listeners) != c.listeners || (c.listeners > 0 && (m.Listeners[0] != m.Addr || len(slices.Compact(slices.Sorted(slices.Values(m.Listeners)))) != c.listeners)) {
					t.Errorf("%s: listeners %q, want %d distinct, %s first", m, m.Listeners, c.listeners, m.Addr)
				}
			}
			table, err := os.ReadFile(filepath.Join(dir, "table.txt"))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("rank 0:\n%s", table)
			lines := []string{fabric.RoundTotalsHeading}
			for i, want := range c.rounds {
				lines = append(lines, checkRoundTotal(t, d, string(table), wl, i+1, want))
			}
			at := strings.Index(string(table), fabric.RoundTotalsHeading)
			if at < 0 || at < strings.Index(string(table), wl+".bw_gbps: rows measure") || at > strings.Index(string(table), "no failed pair, no outlier") {
				t.Errorf("totals missing, or not between the matrices and the findings:\n%s", table)
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
		})
	}
}

// checkRoundTotal checks round num of d: its pairs are want, their runs
// of wl overlap, and the table prints their sums; it returns the line.
func checkRoundTotal(t *testing.T, d *fabricJSON, table, wl string, num int, want []string) string {
	t.Helper()
	var bw, rate float64
	var names []string
	unclean := false
	var last, first time.Time // the latest start, the earliest end
	for _, p := range d.Pairs {
		if p.Round != num {
			continue
		}
		names = append(names, fmt.Sprintf("%d->%d", p.Src, p.Dst))
		b, ok1 := p.Figures.Get(wl + ".bw_gbps")
		r, ok2 := p.Figures.Get(wl + ".msg_rate_mpps")
		if !ok1 || !ok2 {
			t.Fatalf("pair %d->%d: figures %v", p.Src, p.Dst, p.Figures)
		}
		bw, rate = bw+b, rate+r
		unclean = unclean || d.Matrix(wl+".bw_gbps").Caveat(p.Src, p.Dst)&fabric.CaveatUnclean != 0
		start, end := runWindow(t, p, wl)
		if start.After(last) {
			last = start
		}
		if first.IsZero() || end.Before(first) {
			first = end
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Fatalf("round %d: pairs %v, want %v", num, names, want)
	}
	if !last.Before(first) {
		t.Errorf("round %d: the pairs' runs do not overlap: the last began at %s, the first ended at %s", num, last.Format(time.StampMicro), first.Format(time.StampMicro))
	}
	line := fmt.Sprintf("round %d (%d pairs at once, %s): %s %s, %s in all", num, len(want), strings.Join(want, " "), wl,
		display.Marked(display.Significant(bw, 4)+" Gb/s", false, unclean), display.Marked(display.Significant(rate, 4)+" Mpps", false, unclean))
	if !strings.Contains(table, "\n  "+line+"\n") {
		t.Errorf("table lacks %q:\n%s", line, table)
	}
	return line
}

// runWindow is about when p's run of wl measured, anchored at its end:
// the run began at its started_at, before its set-up, and the pair (wl
// alone) ended ElapsedNS later, after a short teardown; the timed part
// (its elapsed_ns) is taken back from that end. Set-up times differ from
// pair to pair, teardowns hardly, so a receiver that served its senders
// one after another would show as windows that do not overlap.
func runWindow(t *testing.T, p fabric.PairOutcome, wl string) (time.Time, time.Time) {
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
	if len(res.Results) != 1 || p.ElapsedNS <= 0 {
		t.Fatalf("pair %d->%d: %d results, elapsed %d ns: want %s alone and the pair's time", p.Src, p.Dst, len(res.Results), p.ElapsedNS, wl)
	}
	r := res.Results[0]
	if r.Workload != wl || len(r.Runs) != 1 || r.Runs[0].StartedAt.IsZero() || r.Runs[0].ElapsedNS <= 0 || r.Runs[0].ElapsedNS > p.ElapsedNS {
		t.Fatalf("pair %d->%d: no %s run with a start and a length within the pair's %d ns in %s", p.Src, p.Dst, wl, p.ElapsedNS, p.Result)
	}
	end := r.Runs[0].StartedAt.Add(time.Duration(p.ElapsedNS))
	return end.Add(-time.Duration(r.Runs[0].ElapsedNS)), end
}
