//go:build cgo

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"

	"github.com/rdma-bench/rdma-bench/pkg/fabric"
)

// fabricFault is a way a fabric sweep loses pairs: which process is hit,
// when, how, and what rank 0's views must then say.
type fabricFault struct {
	name   string
	victim int // the rank hit
	sig    syscall.Signal
	// table, saved are what rank 0's table and its saved document must
	// name; worker, what a surviving worker's stderr must name when the
	// victim is rank 0.
	table, saved []string
	worker       string
	code         int
	partial      bool // rank 0 stops: the document is partial
}

var fabricFaults = []fabricFault{
	{name: "rank lost", victim: 2, sig: syscall.SIGKILL, code: 1,
		table: []string{"FAIL", "pairs failed:", "left the sweep in round"}, saved: []string{"left the sweep in round"}},
	{name: "rank stopped", victim: 2, sig: syscall.SIGSTOP, code: 1,
		table: []string{"FAIL", "pairs failed:", "silent for|stopped answering|no sign of life"}, saved: []string{"left the sweep in round"}},
	{name: "rank 0 lost", victim: 0, sig: syscall.SIGKILL, worker: "lost rank 0"},
	{name: "rank 0 interrupted", victim: 0, sig: syscall.SIGTERM, code: 1, partial: true,
		table: []string{"PARTIAL: stopped in round", "terminated received"}, saved: []string{"terminated received"}},
}

// TestNoGreenFabric: a sweep that loses a rank, or rank 0, exits non-zero
// naming what was lost in every view of rank 0 (its table, its saved
// document, its heat maps when it stopped) and on the surviving workers;
// every pair measured before is kept.
func TestNoGreenFabric(t *testing.T) {
	if os.Getenv("RDMA_BENCH_IN_VM") != "" {
		t.Skip("TCP ranks on the host's loopback: make unit runs them")
	}
	for _, f := range fabricFaults {
		t.Run(f.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"tcp_lat", "-n", "300", "--coordinator", "127.0.0.1:" + testenv.FreePort(t), "--advertise", "127.0.0.1",
				"--threshold", "1000000", "--pair-timeout", "3s", "--idle-timeout", "2s"}
			ps := startRanks(t, 3, []int{1, 2}, args...)
			table, plots := filepath.Join(dir, "table.txt"), filepath.Join(dir, "plots")
			rank0 := startRank(t, cleanEnv(), slices.Concat(args, []string{"--rank", "0", "--world-size", "3",
				"--output-file", table, "--save", "--results-dir", dir, "--plot", plots})...)
			rank0.await(t, "round 2 of 6", time.Minute)
			victim := rank0
			if f.victim > 0 {
				victim = ps[f.victim-1]
			}
			victim.cmd.Process.Signal(f.sig)
			if f.victim == 0 && f.sig == syscall.SIGKILL {
				rank0.wait(t, noGreenViewLimit)
				for i, p := range ps {
					judge(t, "fabric: "+f.name, view{name: "rank " + string(rune('1'+i)), codes: []int{1}, reason: []string{f.worker},
						kept: loggedPairs(dir)}, waitView(p, noGreenViewLimit))
				}
				return
			}
			r := waitView(rank0, 2*noGreenViewLimit)
			if logs, _ := filepath.Glob(filepath.Join(dir, "rdma-bench-fabric-*")); len(logs) != 0 {
				t.Errorf("rank 0 left %v once its outputs were written", logs)
			}
			tv := view{name: "rank 0 table", codes: []int{f.code}, reason: f.table, kept: keptPairs(dir)}
			judge(t, "fabric: "+f.name, tv, withStdout(r, table))
			sv := view{name: "rank 0 saved document", codes: []int{f.code}, reason: f.saved, kept: keptPairs(dir)}
			if f.partial {
				sv.reason = append(sv.reason, `"status": "partial"`)
			}
			judge(t, "fabric: "+f.name, sv, withStdout(r, savedFabric(dir)...))
			if f.partial {
				hv := view{name: "rank 0 heat maps", codes: []int{f.code}, reason: []string{"PARTIAL: stopped in round"}}
				judge(t, "fabric: "+f.name, hv, withStdout(r, svgs(plots)...))
			}
		})
	}
}

// withStdout is r seen through files: their content as its output.
func withStdout(r viewRun, files ...string) viewRun {
	var b strings.Builder
	for _, f := range files {
		data, _ := os.ReadFile(f)
		b.Write(data)
	}
	r.stdout = b.String()
	return r
}

// svgs lists the heat maps drawn into dir.
func svgs(dir string) []string {
	out, _ := filepath.Glob(filepath.Join(dir, "*.svg"))
	return out
}

// loggedPairs says whether a rank 0 that died left its pair log in dir
// (the results directory) with the pairs of rounds 1 and 2, a line of
// JSON each.
func loggedPairs(dir string) func(viewRun) bool {
	return func(viewRun) bool {
		logs, _ := filepath.Glob(filepath.Join(dir, "rdma-bench-fabric-*.pairs.ndjson"))
		if len(logs) != 1 {
			return false
		}
		b, err := os.ReadFile(logs[0])
		if err != nil {
			return false
		}
		ok := 0
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var p fabric.PairOutcome
			if json.Unmarshal([]byte(line), &p) == nil && p.OK() && p.Round <= 2 {
				ok++
			}
		}
		return ok >= 2
	}
}

// keptPairs says whether the document saved into dir holds the pairs
// measured before the fault: rounds 1 and 2 are over when it strikes.
func keptPairs(dir string) func(viewRun) bool {
	return func(viewRun) bool {
		saved := savedFabric(dir)
		if len(saved) != 1 {
			return false
		}
		b, err := os.ReadFile(saved[0])
		if err != nil {
			return false
		}
		var d fabric.Document
		if json.Unmarshal(b, &d) != nil {
			return false
		}
		ok := 0
		for _, p := range d.Pairs {
			if p.OK() && p.Round <= 2 {
				ok++
			}
		}
		return ok >= 2
	}
}
