//go:build cgo

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

// TestFabricPlan1024: --plan for 1024 ranks prints the schedule's size
// and time without measuring, and its first round is the circle method's
// (rank i against 1023-i, 1023 against 0), computed here apart.
func TestFabricPlan1024(t *testing.T) {
	r := run(t, 30*time.Second, "fabric", "write_lat", "write_bw", "--plan", "--world-size", "1024", "-D", "2")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	want := []string{
		"per pair: 6s (2 workloads x (-D 2s + 1s of set-up); give --pair-time to change)",
		// 1024*1023 ordered pairs, 2*(1024-1) rounds of 512, 2046*6s.
		"pattern pairs, 1024 hosts: 2046 rounds, 1047552 pairs (at most 512 a round), 2046 x (6s + 102.4ms of synchronisation) = 3h28m5.5104s",
	}
	// Each round's pairs, on lines of at most 100 columns, those after
	// its first indented under it.
	var rounds [][]string
	var rest []string
	for _, l := range lines[2:] {
		if len(l) > 100 {
			t.Errorf("a line of %d columns: %.120s...", len(l), l)
		}
		switch {
		case strings.HasPrefix(l, "round "):
			rounds = append(rounds, strings.Fields(l)[2:])
		case strings.HasPrefix(l, " ") && len(rounds) > 0:
			rounds[len(rounds)-1] = append(rounds[len(rounds)-1], strings.Fields(l)...)
		default:
			rest = append(rest, l)
		}
	}
	if lines[0] != want[0] || lines[1] != want[1] || len(rounds) != 3 ||
		!slices.Equal(rest, []string{"... 2043 more rounds", "then at most 5m0s re-measuring the suspects, if the sweep finds any (--outlier-time)"}) {
		t.Fatalf("plan:\n%s", r.stdout)
	}
	var round1 []string
	for i := 1; i <= 511; i++ {
		round1 = append(round1, fmt.Sprintf("%d->%d", i, 1023-i))
	}
	round1 = append(round1, "1023->0")
	if got := rounds[0]; !slices.Equal(got, round1) {
		t.Errorf("round 1: %d pairs %.200q..., want %d %.200q...", len(got), got, len(round1), round1)
	}
	for i, r := range rounds {
		seen := map[string]bool{}
		for _, p := range r {
			src, dst, _ := strings.Cut(p, "->")
			if seen[src] || seen[dst] {
				t.Errorf("round %d has a rank twice: %s", i+1, p)
			}
			seen[src], seen[dst] = true, true
		}
		if len(seen) != 1024 {
			t.Errorf("round %d covers %d ranks, want 1024", i+1, len(seen))
		}
	}
}

// TestFabricPlanLatency: docs/fabric.md's plan of an all-pairs latency
// matrix of 1024 hosts at 1000 iterations on a 5 us fabric, and the same
// with a set-up kept across pairs.
func TestFabricPlanLatency(t *testing.T) {
	for _, c := range []struct {
		setup string
		want  []string
	}{
		{"1s", []string{"per pair: 1.011s (1 workload: (1000 + 100 warm-up) x 2 x 5µs + 1s of set-up; give --pair-time to change)",
			"pattern pairs, 1024 hosts: 2046 rounds, 1047552 pairs (at most 512 a round), 2046 x (1.011s + 102.4ms of synchronisation) = 37m58.0164s"}},
		{"20ms", []string{"per pair: 31ms (1 workload: (1000 + 100 warm-up) x 2 x 5µs + 20ms of set-up; give --pair-time to change)",
			"pattern pairs, 1024 hosts: 2046 rounds, 1047552 pairs (at most 512 a round), 2046 x (31ms + 102.4ms of synchronisation) = 4m32.9364s"}},
	} {
		r := run(t, 30*time.Second, "fabric", "write_lat", "--plan", "--world-size", "1024", "-n", "1000", "--plan-latency", "5us", "--plan-setup", c.setup)
		lines := strings.SplitN(r.stdout, "\n", 3)
		if r.code != 0 || len(lines) < 3 || lines[0] != c.want[0] || lines[1] != c.want[1] {
			t.Errorf("--plan-setup %s: exit %d:\n%s\nwant:\n%s\n%s", c.setup, r.code, r.stdout, strings.Join(c.want, "\n"), r.stderr)
		}
	}
}

// TestFabricPlanUnderLauncher: --plan takes the size from the launcher;
// without -D or --plan-latency the time per pair is --pair-timeout's
// bound.
func TestFabricPlanUnderLauncher(t *testing.T) {
	p := startRank(t, cleanEnv("OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=5"), "write_lat", "--plan", "--pattern", "ring", "--pair-timeout", "30s")
	p.wait(t, 30*time.Second)
	want := "per pair: 30s (--pair-timeout, the most a pair may take; give -D, --plan-latency (the fabric's latency, for write_lat's 1000 iterations) or --pair-time for an estimate)\n" +
		"pattern ring, 5 hosts: 3 rounds, 5 pairs (at most 2 a round), 3 x (30s + 500µs of synchronisation) = 1m30.0015s\n" +
		"round 1: 0->1 2->3\nround 2: 1->2 3->4\nround 3: 4->0\n" +
		"then at most 5m0s re-measuring the suspects, if the sweep finds any (--outlier-time)\n"
	if p.code != 0 || p.stdout.String() != want {
		t.Errorf("exit %d:\n%s\nwant:\n%s\n%s", p.code, p.stdout.String(), want, p.stderr.String())
	}
}

// TestFabricBadInput: each bad command line is refused at once, exit 2,
// with a message naming the value and what is expected. None needs a
// device.
func TestFabricBadInput(t *testing.T) {
	if os.Getenv("RDMA_BENCH_IN_VM") != "" {
		t.Skip("needs no device: the host ran it (a process takes a second to start under emulation)")
	}
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	manual := []string{"--rank", "1", "--world-size", "2", "--coordinator", "127.0.0.1:1"}
	cases := []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"tcp_lat", "--coordinator", "h:1"}, "no launcher found (OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID and JOB_COMPLETION_INDEX are unset) and no --rank/--world-size given"},
		{nil, []string{"tcp_lat", "--rank", "4", "--world-size", "4", "--coordinator", "h:1"}, "rank 4 (manual) outside 0..3 for world size 4"},
		{nil, []string{"tcp_lat", "--rank", "-1", "--world-size", "4", "--coordinator", "h:1"}, "rank -1 (manual) outside 0..3"},
		{[]string{"SLURM_PROCID=5", "SLURM_NTASKS=4"}, []string{"tcp_lat", "--coordinator", "h:1"}, "rank 5 (slurm) outside 0..3 for world size 4"},
		{[]string{"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=4"}, []string{"tcp_lat", "--rank", "2", "--coordinator", "h:1"}, "--rank 2 disagrees with OMPI_COMM_WORLD_RANK=1"},
		{nil, []string{"tcp_lat", "--rank", "0", "--coordinator", "h:1"}, "--rank 0 given without --world-size: give both"},
		{nil, []string{"tcp_lat", "--rank", "0", "--world-size", "1", "--coordinator", "h:1"}, "world size 1 (manual): want 2 to 1024 processes"},
		{nil, []string{"tcp_lat", "--rank", "0", "--world-size", "1025", "--coordinator", "h:1"}, "world size 1025 (manual): want 2 to 1024 processes"},
		{nil, []string{"tcp_lat", "--rank", "1", "--world-size", "2"}, "no way for the ranks to find rank 0 (this is rank 1 of 2, manual): PMI_FD is unset"},
		{nil, slices.Concat([]string{"tcp_lat"}, manual[:4], []string{"--coordinator", "nohost"}), `--coordinator "nohost": want HOST:PORT`},
		{nil, slices.Concat([]string{"tcp_lat"}, manual[:4], []string{"--coordinator", "h:99999"}), `port "99999": want 1..65535`},
		{nil, slices.Concat([]string{"tcp_lat"}, manual[:4], []string{"--rendezvous-dir", "/nonexistent/run-1"}), "--rendezvous-dir /nonexistent/run-1: want an existing directory"},
		{nil, slices.Concat([]string{"tcp_lat"}, manual[:4], []string{"--rendezvous-dir", notDir}), "want an existing directory every host shares"},
		{nil, manual, "name the workloads to measure on every pair"},
		{nil, slices.Concat([]string{"nosuch"}, manual), `unknown workload "nosuch"`},
		{nil, slices.Concat([]string{"tcp_lat", "tcp_lat"}, manual), "workload tcp_lat named twice"},
		{nil, slices.Concat([]string{"tcp_lat", "--pattern", "star"}, manual), `--pattern "star": want pairs, ring, one-to-all, halves, incast`},
		{nil, []string{"tcp_lat", "--pattern", "halves", "--rank", "1", "--world-size", "3", "--coordinator", "127.0.0.1:1"}, "--pattern: pattern halves for 3 ranks: want an even number of ranks (2, 4, 6 ...)"},
		{nil, []string{"tcp_lat", "--pattern", "halves", "--plan", "--world-size", "5"}, "pattern halves for 5 ranks: want an even number of ranks"},
		{nil, []string{"tcp_lat", "--pattern", "incast", "--rank", "1", "--world-size", "65", "--coordinator", "127.0.0.1:1"}, "--pattern: pattern incast for 65 ranks: want 2 to 64 (the receiver serves every other rank at once, a listener each)"},
		{nil, []string{"tcp_lat", "--pattern", "incast", "--plan", "--world-size", "100"}, "pattern incast for 100 ranks: want 2 to 64"},
		{nil, []string{"tcp_lat", "--pattern", "incast", "--rank", "0", "--world-size", "1", "--coordinator", "h:1"}, "world size 1 (manual): want 2 to 1024 processes"},
		{nil, slices.Concat([]string{"tcp_bw", "tcp_lat", "--pattern", "incast"}, manual), "--pattern incast with 2 workloads (tcp_bw, tcp_lat): incast measures one workload a sweep"},
		{nil, slices.Concat([]string{"tcp_lat", "--pattern", "incast", "-p", "18515"}, manual), "-p 18515 with --pattern incast: each rank opens a listener per other rank, on free ports -p cannot name; leave -p out"},
		{nil, slices.Concat([]string{"tcp_lat", "--threshold", "0"}, manual), "--threshold 0: want a percentage above 0 such as 20"},
		{nil, slices.Concat([]string{"tcp_lat", "--threshold", "NaN"}, manual), "--threshold NaN"},
		{nil, slices.Concat([]string{"tcp_lat", "--outlier-pairs", "6"}, manual), "--outlier-pairs 6: want 12 to 1000 (fewer pairs never decide)"},
		{nil, slices.Concat([]string{"tcp_lat", "--outlier-pairs", "1001"}, manual), "--outlier-pairs 1001: want 12 to 1000"},
		{nil, slices.Concat([]string{"tcp_lat", "--pair-timeout", "10ms"}, manual), "--pair-timeout 10ms: want at least 1s"},
		{nil, slices.Concat([]string{"tcp_lat", "--rendezvous-timeout", "0s"}, manual), "--rendezvous-timeout 0s: want at least 1s"},
		{nil, slices.Concat([]string{"tcp_lat", "-o", "csv"}, manual), `-o "csv": want table or json`},
		{nil, slices.Concat([]string{"tcp_lat", "-a"}, manual), "--all does not apply to fabric"},
		{nil, slices.Concat([]string{"tcp_lat", "--report-interval", "1s"}, manual), "--report-interval does not apply to fabric"},
		{nil, slices.Concat([]string{"write_lat", "-q", "2"}, manual), "--qp applies to none of write_lat"},
		{nil, slices.Concat([]string{"tcp_lat", "-n", "5", "-D", "1"}, manual), "cannot go together"},
		{nil, slices.Concat([]string{"tcp_lat", "--advertise", "a b"}, manual), `host "a b": want a host name or an IP address`},
		{nil, []string{"tcp_lat", "--plan"}, "--plan needs the number of ranks: give --world-size N"},
		{nil, []string{"write_lat", "--plan", "--world-size", "4", "--plan-latency", "-5us"}, "--plan-latency -5µs: want 0 to 1s, such as 5us"},
		{nil, []string{"write_lat", "--plan", "--world-size", "4", "--plan-setup", "2h"}, "--plan-setup 2h0m0s: want 0 to 1h0m0s, such as 20ms"},
		{nil, []string{"write_lat", "--plan", "--world-size", "4", "--plan-sync", "2s"}, "--plan-sync 2s: want 0 to 1s, such as 100us"},
		{nil, []string{"write_lat", "--plan", "--world-size", "4", "--plan-sync", "soon"}, `invalid argument "soon" for "--plan-sync"`},
		{nil, []string{"tcp_lat", "--plan", "--world-size", "1"}, "world size 1 (--world-size): want 2 to 1024 processes"},
		{nil, []string{"tcp_lat", "--plan", "--world-size", "0"}, "world size 0 (--world-size): want 2 to 1024"},
		{nil, []string{"tcp_lat", "--plan", "--world-size", "-1"}, "world size -1 (--world-size): want 2 to 1024"},
		{nil, []string{"tcp_lat", "--plan", "--world-size", "1025"}, "world size 1025 (--world-size): want 2 to 1024"},
		{nil, []string{"tcp_lat", "--plan", "--world-size", "100000"}, "world size 100000 (--world-size): want 2 to 1024"},
		{nil, []string{"tcp_lat", "--plan", "--world-size", "2147483648"}, "world size 2147483648 (--world-size): want 2 to 1024"},
		{nil, []string{"tcp_lat", "--plan", "--world-size", "9223372036854775807"}, "world size 9223372036854775807 (--world-size): want 2 to 1024"},
		{[]string{"SLURM_PROCID=0", "SLURM_NTASKS=9223372036854775807"}, []string{"tcp_lat", "--plan"}, "world size 9223372036854775807 (slurm): want 2 to 1024"},
		{nil, []string{"tcp_lat", "--rank", "0", "--world-size", "2", "--coordinator", "h:1", "--output-file", "/nonexistent/x"}, "--output-file /nonexistent/x: cannot create a file in directory /nonexistent"},
		{nil, []string{"tcp_lat", "--rank", "0", "--world-size", "2", "--coordinator", "h:1", "--save", "--results-dir", "/proc/self"}, "--results-dir"},
		{nil, []string{"tcp_lat", "--rank", "0", "--world-size", "2", "--coordinator", "h:1", "--plot", notDir}, "--plot " + notDir + ": not a directory"},
	}
	for _, c := range cases {
		p := startRank(t, cleanEnv(c.env...), c.args...)
		p.wait(t, 30*time.Second)
		if stderr := p.stderr.String(); p.code != 2 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "panic") {
			t.Errorf("%v fabric %q: exit %d, stderr %q; want exit 2 and %q", c.env, c.args, p.code, stderr, c.want)
		}
	}
}

// startRanks starts `rdma-bench fabric ARGS --rank r --world-size n` for
// each of ranks.
func startRanks(t *testing.T, n int, ranks []int, args ...string) []*proc {
	t.Helper()
	var ps []*proc
	for _, r := range ranks {
		ps = append(ps, startRank(t, cleanEnv(), slices.Concat(args, []string{"--rank", strconv.Itoa(r), "--world-size", strconv.Itoa(n)})...))
	}
	return ps
}

// TestFabricRendezvousFailures: a run that cannot come together ends in
// bounded time, exit 2, every process naming why: a coordinator that does
// not answer, a rank that never starts, a rank claimed twice, a
// rendezvous directory rank 0 cannot write.
func TestFabricRendezvousFailures(t *testing.T) {
	const bound = 3 * time.Second
	for _, c := range []struct {
		name  string
		ranks []int
		extra []string
		want  []string // by process
	}{
		{"no coordinator", []int{1}, nil,
			[]string{"did not answer within 3s"}},
		{"rank never starts", []int{0, 1, 2}, nil, []string{"rank 3 never registered within 3s",
			"rank 0 ended the rendezvous: rank 3 never registered within 3s", "rank 0 ended the rendezvous: rank 3 never registered"}},
		{"rank claimed twice", []int{0, 1, 1, 2}, nil, []string{"rank 1 claimed twice", "", "", ""}},
		{"unwritable dir", []int{0}, []string{"--rendezvous-dir", "/proc/self"},
			[]string{"--rendezvous-dir /proc/self is not writable by rank 0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"tcp_lat", "-n", "10", "--rendezvous-timeout", "3s", "--advertise", "127.0.0.1"}
			if c.extra == nil {
				args = append(args, "--coordinator", "127.0.0.1:"+testenv.FreePort(t))
			}
			args = append(args, c.extra...)
			start := time.Now()
			ps := startRanks(t, 4, c.ranks, args...)
			for i, p := range ps {
				p.wait(t, time.Minute)
				stderr := p.stderr.String()
				if p.code != 2 || !strings.Contains(stderr, c.want[i]) {
					t.Errorf("process %d (rank %d): exit %d, stderr %q; want exit 2 and %q", i, c.ranks[i], p.code, stderr, c.want[i])
				}
				if p.stdout.Len() > 0 {
					t.Errorf("process %d wrote to stdout: %s", i, p.stdout.String())
				}
			}
			if d := time.Since(start); d > bound+margin+5*time.Second {
				t.Errorf("took %v, want the %v bound and a margin", d, bound)
			}
		})
	}
}
