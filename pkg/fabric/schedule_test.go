package fabric

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"
)

// checkRounds fails unless no rank is twice in a round and every pair is
// between distinct ranks in 0..n-1; it returns how often each ordered pair
// (src*n+dst) was measured.
func checkRounds(t *testing.T, n int, rounds []Round) []int {
	t.Helper()
	seen := make([]int, n*n)
	busy := make([]int, n) // round index+1 a rank was last busy in
	for ri, r := range rounds {
		for _, p := range r {
			if p.Src < 0 || p.Src >= n || p.Dst < 0 || p.Dst >= n || p.Src == p.Dst {
				t.Fatalf("n=%d round %d: bad pair %+v", n, ri, p)
			}
			for _, h := range []int{p.Src, p.Dst} {
				if busy[h] == ri+1 {
					t.Fatalf("n=%d round %d: rank %d in two pairs", n, ri, h)
				}
				busy[h] = ri + 1
			}
			seen[p.Src*n+p.Dst]++
		}
	}
	return seen
}

func TestSchedulePairs(t *testing.T) {
	sizes := []int{1024}
	for n := 2; n <= 40; n++ {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		rounds, err := Schedule(PatternPairs, n)
		if err != nil {
			t.Fatal(err)
		}
		want := 2 * (n - 1)
		if n%2 == 1 {
			want = 2 * n
		}
		if len(rounds) != want {
			t.Fatalf("n=%d: %d rounds, want %d", n, len(rounds), want)
		}
		seen := checkRounds(t, n, rounds)
		for s := range n {
			for d := range n {
				if got, w := seen[s*n+d], boolInt(s != d); got != w {
					t.Fatalf("n=%d: pair %d->%d measured %d times, want %d", n, s, d, got, w)
				}
			}
		}
		// Even n: every rank is busy in every round; odd n: one sits out.
		for ri, r := range rounds {
			if len(r) != n/2 {
				t.Fatalf("n=%d round %d: %d pairs, want %d", n, ri, len(r), n/2)
			}
		}
	}
}

func TestScheduleRing(t *testing.T) {
	for n := 2; n <= 40; n++ {
		rounds, err := Schedule(PatternRing, n)
		if err != nil {
			t.Fatal(err)
		}
		if want := 2 + n%2; len(rounds) != want {
			t.Fatalf("n=%d: %d rounds, want %d", n, len(rounds), want)
		}
		seen := checkRounds(t, n, rounds)
		for s := range n {
			for d := range n {
				if got, w := seen[s*n+d], boolInt(d == (s+1)%n); got != w {
					t.Fatalf("n=%d: pair %d->%d measured %d times, want %d", n, s, d, got, w)
				}
			}
		}
	}
}

func TestScheduleOneToAll(t *testing.T) {
	for n := 2; n <= 40; n++ {
		rounds, err := Schedule(PatternOneToAll, n)
		if err != nil {
			t.Fatal(err)
		}
		if want := 2 * (n - 1); len(rounds) != want {
			t.Fatalf("n=%d: %d rounds, want %d", n, len(rounds), want)
		}
		seen := checkRounds(t, n, rounds)
		for s := range n {
			for d := range n {
				w := boolInt(s != d && (s == 0 || d == 0))
				if got := seen[s*n+d]; got != w {
					t.Fatalf("n=%d: pair %d->%d measured %d times, want %d", n, s, d, got, w)
				}
			}
		}
	}
}

// TestScheduleHalves: round 1 is i -> i+n/2 for every i < n/2, round 2
// the reverse; every rank is in exactly one pair a round; odd n is
// refused, by CheckPattern too.
func TestScheduleHalves(t *testing.T) {
	for n := 2; n <= 40; n += 2 {
		rounds, err := Schedule(PatternHalves, n)
		if err != nil {
			t.Fatal(err)
		}
		if len(rounds) != 2 {
			t.Fatalf("n=%d: %d rounds, want 2", n, len(rounds))
		}
		seen := checkRounds(t, n, rounds)
		for ri, r := range rounds {
			if len(r) != n/2 {
				t.Fatalf("n=%d round %d: %d pairs, want %d", n, ri+1, len(r), n/2)
			}
			in := make([]int, n)
			for i, p := range r {
				want := Pair{Src: i, Dst: i + n/2}
				if ri == 1 {
					want = Pair{Src: i + n/2, Dst: i}
				}
				if p != want {
					t.Fatalf("n=%d round %d pair %d: %+v, want %+v", n, ri+1, i, p, want)
				}
				in[p.Src]++
				in[p.Dst]++
			}
			for rank, k := range in {
				if k != 1 {
					t.Fatalf("n=%d round %d: rank %d in %d pairs, want 1", n, ri+1, rank, k)
				}
			}
		}
		for s := range n {
			for d := range n {
				if got, w := seen[s*n+d], boolInt(d == (s+n/2)%n); got != w {
					t.Fatalf("n=%d: pair %d->%d measured %d times, want %d", n, s, d, got, w)
				}
			}
		}
		if err := CheckPattern(PatternHalves, n); err != nil {
			t.Errorf("CheckPattern(halves, %d): %v", n, err)
		}
	}
	for _, n := range []int{3, 5, 7, 1023} {
		if err := CheckPattern(PatternHalves, n); err == nil || !strings.Contains(err.Error(), "want an even number of ranks") {
			t.Errorf("CheckPattern(halves, %d) = %v, want an even number refused", n, err)
		}
	}
}

// TestScheduleIncast: round r is every other rank -> r, so n rounds
// measure every ordered pair once; within a round no rank measures twice
// and no rank both measures and serves, as Round promises, and Served
// names the receiver's n-1 peers in order; ListenersFor is n-1 for
// incast, 1 for the others; a world above MaxIncastWorldSize is refused,
// by CheckPattern too.
func TestScheduleIncast(t *testing.T) {
	for n := 2; n <= MaxIncastWorldSize; n++ {
		rounds, err := Schedule(PatternIncast, n)
		if err != nil {
			t.Fatal(err)
		}
		if len(rounds) != n {
			t.Fatalf("n=%d: %d rounds, want %d", n, len(rounds), n)
		}
		seen := make([]int, n*n)
		for ri, r := range rounds {
			if len(r) != n-1 {
				t.Fatalf("n=%d round %d: %d pairs, want %d", n, ri+1, len(r), n-1)
			}
			measures, serves := make([]int, n), make([]int, n)
			for _, p := range r {
				if p.Dst != ri || p.Src == p.Dst || p.Src < 0 || p.Src >= n {
					t.Fatalf("n=%d round %d: pair %+v, want a sender -> %d", n, ri+1, p, ri)
				}
				measures[p.Src]++
				serves[p.Dst]++
				seen[p.Src*n+p.Dst]++
			}
			for rank := range n {
				if measures[rank] > 1 || measures[rank] > 0 && serves[rank] > 0 {
					t.Fatalf("n=%d round %d: rank %d measures %d and serves %d pairs", n, ri+1, rank, measures[rank], serves[rank])
				}
			}
			served := r.Served()
			if len(served) != 1 || len(served[ri]) != n-1 {
				t.Fatalf("n=%d round %d: served %v, want rank %d serving %d", n, ri+1, served, ri, n-1)
			}
			for i, src := range served[ri] {
				if src != r[i].Src {
					t.Fatalf("n=%d round %d: listener %d serves %d, want %d (the round's order)", n, ri+1, i, src, r[i].Src)
				}
			}
		}
		for s := range n {
			for d := range n {
				if got, w := seen[s*n+d], boolInt(s != d); got != w {
					t.Fatalf("n=%d: pair %d->%d measured %d times, want %d", n, s, d, got, w)
				}
			}
		}
		if got := ListenersFor(PatternIncast, n); got != n-1 {
			t.Errorf("ListenersFor(incast, %d) = %d, want %d", n, got, n-1)
		}
		if got := ListenersFor(PatternPairs, n); got != 1 {
			t.Errorf("ListenersFor(pairs, %d) = %d, want 1", n, got)
		}
	}
	for _, n := range []int{MaxIncastWorldSize + 1, 1024} {
		if err := CheckPattern(PatternIncast, n); err == nil || !strings.Contains(err.Error(), "want 2 to 64 (the receiver serves every other rank at once") {
			t.Errorf("CheckPattern(incast, %d) = %v, want it refused", n, err)
		}
	}
	if err := CheckPattern(PatternIncast, 1); err == nil || !strings.Contains(err.Error(), "want 2 to") {
		t.Errorf("CheckPattern(incast, 1) = %v, want it refused", err)
	}
}

func TestScheduleErrors(t *testing.T) {
	for _, c := range []struct {
		pattern string
		n       int
		want    string
	}{
		{"mesh", 4, `pattern "mesh": want pairs, ring, one-to-all, halves, incast`},
		{PatternPairs, 1, "schedule for 1 ranks: want 2 to 1024"},
		{PatternRing, 0, "schedule for 0 ranks: want 2 to 1024"},
		{PatternOneToAll, -1, "schedule for -1 ranks: want 2 to 1024"},
		{PatternPairs, MaxWorldSize + 1, "schedule for 1025 ranks: want 2 to 1024"},
		{PatternRing, math.MaxInt, "schedule for 9223372036854775807 ranks: want 2 to 1024"},
		{PatternPairs, math.MinInt, "schedule for -9223372036854775808 ranks: want 2 to 1024"},
		{PatternHalves, 5, "pattern halves for 5 ranks: want an even number of ranks (2, 4, 6 ...), the first half paired with the second"},
		{PatternHalves, MaxWorldSize - 1, "pattern halves for 1023 ranks: want an even number of ranks (2, 4, 6 ...), the first half paired with the second"},
		{PatternHalves, 0, "schedule for 0 ranks: want 2 to 1024"},
	} {
		if _, err := Schedule(c.pattern, c.n); err == nil || err.Error() != c.want {
			t.Errorf("Schedule(%q, %d) = %v, want %q", c.pattern, c.n, err, c.want)
		}
	}
}

// TestScheduleLimit: every pattern schedules the largest world it
// allows: MaxWorldSize, MaxIncastWorldSize for incast.
func TestScheduleLimit(t *testing.T) {
	for _, p := range Patterns {
		n := MaxWorldSize
		if p == PatternIncast {
			n = MaxIncastWorldSize
		}
		rounds, err := Schedule(p, n)
		if err != nil || Plan(rounds, 0, 0).Hosts != n {
			t.Errorf("Schedule(%q, %d): %d rounds, %v", p, n, len(rounds), err)
		}
	}
}

// TestPlan checks the arithmetic docs/fabric.md gives: rounds x per-pair
// time, by hand: pairs of 16 hosts is 2*15 rounds of 8 pairs.
func TestPlan(t *testing.T) {
	cases := []struct {
		pattern string
		n       int
		want    PlanSummary
	}{
		{PatternPairs, 16, PlanSummary{16, 30, 240, 8, 10 * time.Second, 5 * time.Minute, 0}},
		{PatternPairs, 128, PlanSummary{128, 254, 16256, 64, 10 * time.Second, 2540 * time.Second, 0}},
		{PatternPairs, 1024, PlanSummary{1024, 2046, 1047552, 512, 10 * time.Second, 20460 * time.Second, 0}},
		{PatternPairs, 5, PlanSummary{5, 10, 20, 2, 10 * time.Second, 100 * time.Second, 0}},
		{PatternRing, 1024, PlanSummary{1024, 2, 1024, 512, 10 * time.Second, 20 * time.Second, 0}},
		{PatternRing, 7, PlanSummary{7, 3, 7, 3, 10 * time.Second, 30 * time.Second, 0}},
		{PatternOneToAll, 1024, PlanSummary{1024, 2046, 2046, 1, 10 * time.Second, 20460 * time.Second, 0}},
		{PatternHalves, 1024, PlanSummary{1024, 2, 1024, 512, 10 * time.Second, 20 * time.Second, 0}},
		{PatternHalves, 2, PlanSummary{2, 2, 2, 1, 10 * time.Second, 20 * time.Second, 0}},
	}
	for _, c := range cases {
		rounds, err := Schedule(c.pattern, c.n)
		if err != nil {
			t.Fatal(err)
		}
		if got := Plan(rounds, 10*time.Second, 0); got != c.want {
			t.Errorf("%s n=%d: got %+v, want %+v", c.pattern, c.n, got, c.want)
		}
	}
	// The synchronisation: 0.1 ms a rank a round, 1024 ranks, 2046 rounds
	// of 10 ms pairs: 2046 x (10 + 102.4) ms.
	got, err := PlanFor(PatternPairs, 1024, 10*time.Millisecond, DefaultPlanSync)
	want := PlanSummary{1024, 2046, 1047552, 512, 10 * time.Millisecond, 2046 * 112400 * time.Microsecond, 102400 * time.Microsecond}
	if err != nil || got != want {
		t.Errorf("with synchronisation: %+v %v, want %+v", got, err, want)
	}
	if s, want := got.String(), "1024 hosts: 2046 rounds, 1047552 pairs (at most 512 a round), 2046 x (10ms + 102.4ms of synchronisation) = 3m49.9704s"; s != want {
		t.Errorf("got %q, want %q", s, want)
	}
}

// TestEstimatePairTime: -D, or -n at a latency for latency workloads,
// plus the set-up per workload; what cannot be told counts the timeout.
func TestEstimatePairTime(t *testing.T) {
	lat := PairWork{Name: "write_lat", Latency: true, Iterations: 1000, Warmup: 100}
	bw := PairWork{Name: "write_bw", Iterations: 5000, Warmup: 100}
	setup := PairCost{Setup: time.Second, PairTimeout: time.Minute}
	at5us := setup
	at5us.Latency = 5 * time.Microsecond
	pinned := at5us
	pinned.PairTime = 3 * time.Second
	cases := []struct {
		work []PairWork
		c    PairCost
		want time.Duration
		how  string
	}{
		{[]PairWork{{Name: "write_lat", Latency: true, Duration: 2 * time.Second}, {Name: "write_bw", Duration: 2 * time.Second}}, setup, 6 * time.Second,
			"2 workloads x (-D 2s + 1s of set-up); give --pair-time to change"},
		{[]PairWork{lat}, at5us, time.Second + 11*time.Millisecond, "1 workload: (1000 + 100 warm-up) x 2 x 5µs + 1s of set-up; give --pair-time to change"},
		{[]PairWork{lat, {Name: "read_lat", Latency: true, Duration: time.Second}}, at5us, 3*time.Second + 11*time.Millisecond,
			"write_lat (1000 + 100 warm-up) x 2 x 5µs + 1s of set-up; read_lat -D 1s + 1s of set-up; give --pair-time to change"},
		{[]PairWork{lat}, setup, time.Minute, "--pair-timeout, the most a pair may take; give -D, --plan-latency (the fabric's latency, for write_lat's 1000 iterations) or --pair-time for an estimate"},
		{[]PairWork{lat, bw}, at5us, time.Minute, "--pair-timeout, the most a pair may take: write_bw counts iterations, whose time a plan cannot tell for a bandwidth workload; give -D or --pair-time for an estimate"},
		{[]PairWork{lat, bw}, pinned, 3 * time.Second, "--pair-time"},
	}
	for i, c := range cases {
		got := EstimatePairTime(c.work, c.c)
		if got.Time != c.want || got.How != c.how {
			t.Errorf("case %d: got %s (%s), want %s (%s)", i, got.Time, got.How, c.want, c.how)
		}
	}
}

func TestWritePlan(t *testing.T) {
	rounds, err := Schedule(PatternPairs, 4)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WritePlan(&b, PatternPairs, rounds, 2*time.Second, time.Millisecond, 4); err != nil {
		t.Fatal(err)
	}
	want := `pattern pairs, 4 hosts: 6 rounds, 12 pairs (at most 2 a round), 6 x (2s + 4ms of synchronisation) = 12.024s
round 1: 1->2 3->0
round 2: 1->3 2->0
round 3: 0->1 3->2
round 4: 0->3 2->1
... 2 more rounds
`
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
