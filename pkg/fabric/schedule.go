package fabric

import (
	"fmt"
	"slices"
	"strings"
)

// Schedule patterns accepted by Schedule.
const (
	// PatternPairs measures every ordered pair once: a round-robin
	// tournament by the circle method, each unordered pair in both
	// directions. N-1 rounds per direction for even N, N for odd N (one
	// host sits out each round), so 2(N-1) or 2N rounds in all.
	PatternPairs = "pairs"
	// PatternRing measures i -> i+1 mod N for every i: 2 rounds for even
	// N, 3 for odd N (an odd cycle's edges need three colours).
	PatternRing = "ring"
	// PatternOneToAll measures rank 0 against every other rank in both
	// directions, one pair per round: 2(N-1) rounds.
	PatternOneToAll = "one-to-all"
	// PatternHalves measures the first half of the ranks against the
	// second, osu_mbw_mr's N concurrent pairs: round 1 i -> i+N/2 for
	// every i < N/2, all at once, round 2 the reverse. N must be even.
	// With a launcher's block placement (ranks 0..N/2-1 on one host, the
	// rest on another) its rounds are N/2 pairs between two hosts, whose
	// sum RoundTotals gives.
	PatternHalves = "halves"
	// PatternIncast measures N-1 senders into one receiver at once
	// (N-to-1, incast): in round r every other rank -> r, the receiver
	// rotating over the ranks, so N rounds in all. The receiver serves
	// its N-1 pairs at once, one listener each (ListenersFor); N is at
	// most MaxIncastWorldSize. RoundTotals gives the receiver's sum.
	PatternIncast = "incast"
)

// Patterns lists the schedule patterns in the order the help shows them.
var Patterns = []string{PatternPairs, PatternRing, PatternOneToAll, PatternHalves, PatternIncast}

// MaxIncastWorldSize bounds the incast pattern's world: each rank opens
// a measurement listener for every other rank (ListenersFor), and a
// receiver runs as many servers at once.
const MaxIncastWorldSize = 64

// ListenersFor is how many measurement listeners each rank needs for
// pattern's schedule of n ranks: one per pair it serves in a round, so 1
// but under incast, whose receiver serves n-1 pairs at once.
func ListenersFor(pattern string, n int) int {
	if pattern == PatternIncast {
		return max(n-1, 1)
	}
	return 1
}

// Pair is one measurement: Src measures against Dst, which serves.
type Pair struct {
	Src int `json:"src"`
	Dst int `json:"dst"`
}

// Round is a set of pairs measured at the same time. No rank measures
// (Src) in two of its pairs, and no rank both measures and serves (Dst).
// A rank serves one of its pairs, but for an incast round's receiver,
// which serves all of them at once, on its ListenersFor listeners (see
// Member.Listeners); Round.Served gives what each serving rank serves.
type Round []Pair

// Served maps each serving rank of the round to the measuring ranks it
// serves, in the round's order: one each, or several for an incast
// round's receiver (its listener i serves the i-th).
func (r Round) Served() map[int][]int {
	out := make(map[int][]int, len(r))
	for _, p := range r {
		out[p.Dst] = append(out[p.Dst], p.Src)
	}
	return out
}

// Schedule returns the rounds of pattern for n ranks, pairs sorted by Src
// within a round. n must be 2 to MaxWorldSize.
func Schedule(pattern string, n int) ([]Round, error) {
	count, at, err := rounds(pattern, n)
	if err != nil {
		return nil, err
	}
	out := make([]Round, count)
	for i := range out {
		out[i] = at(i)
	}
	return out, nil
}

// rounds returns how many rounds pattern has for n ranks and a function
// that builds round i (from 0) when asked, as Schedule gives it: the
// sweep builds one round at a time, not the schedule (17 MB of pairs at
// 1024 ranks).
func rounds(pattern string, n int) (int, func(int) Round, error) {
	if n < 2 || n > MaxWorldSize {
		return 0, nil, fmt.Errorf("schedule for %d ranks: want 2 to %d", n, MaxWorldSize)
	}
	switch pattern {
	case PatternPairs:
		c := n + n%2 - 1 // players on the circle
		return 2 * c, func(i int) Round { return allPairsRound(n, i) }, nil
	case PatternRing:
		r := ring(n)
		return len(r), func(i int) Round { return r[i] }, nil
	case PatternOneToAll:
		return 2 * (n - 1), func(i int) Round {
			if i%2 == 0 {
				return Round{{Src: 0, Dst: i/2 + 1}}
			}
			return Round{{Src: i/2 + 1, Dst: 0}}
		}, nil
	case PatternHalves:
		if n%2 != 0 {
			return 0, nil, fmt.Errorf("pattern %s for %d ranks: want an even number of ranks (2, 4, 6 ...), the first half paired with the second", pattern, n)
		}
		return 2, func(i int) Round { return halvesRound(n, i == 1) }, nil
	case PatternIncast:
		if n > MaxIncastWorldSize {
			return 0, nil, fmt.Errorf("pattern %s for %d ranks: want 2 to %d (the receiver serves every other rank at once, a listener each)", pattern, n, MaxIncastWorldSize)
		}
		return n, func(i int) Round { return incastRound(n, i) }, nil
	}
	return 0, nil, fmt.Errorf("pattern %q: want %s", pattern, strings.Join(Patterns, ", "))
}

// CheckPattern says whether pattern has a schedule for n ranks, without
// building it: Schedule's error when not.
func CheckPattern(pattern string, n int) error {
	_, _, err := rounds(pattern, n)
	return err
}

// halvesRound is i -> i+n/2 for every i < n/2, or (reverse) the same
// pairs the other way.
func halvesRound(n int, reverse bool) Round {
	h := n / 2
	r := make(Round, 0, h)
	for i := range h {
		p := Pair{Src: i, Dst: i + h}
		if reverse {
			p.Src, p.Dst = p.Dst, p.Src
		}
		r = append(r, p)
	}
	return r
}

// incastRound is every rank but dst -> dst.
func incastRound(n, dst int) Round {
	r := make(Round, 0, n-1)
	for i := range n {
		if i != dst {
			r = append(r, Pair{Src: i, Dst: dst})
		}
	}
	return r
}

// allPairsRound is round i of the circle method: players 0..m-2 sit on a
// circle and m-1 in the middle (m = n, or n+1 with a phantom player whose
// partner sits out). In round r the middle plays r, and r+k plays r-k
// (mod m-1) for k = 1 .. m/2-1. Players a, b on the circle meet in the
// round r with a+b = 2r (mod m-1), which is unique as m-1 is odd. Rounds
// m-1 and on repeat the first ones with every pair reversed.
func allPairsRound(n, i int) Round {
	m := n + n%2
	c := m - 1 // players on the circle
	r, reverse := i%c, i >= c
	round := make(Round, 0, m/2)
	add := func(a, b int) {
		if a < n && b < n { // a phantom's partner sits out
			if reverse {
				a, b = b, a
			}
			round = append(round, Pair{Src: a, Dst: b})
		}
	}
	if r%2 == 0 { // alternate the middle player's direction
		add(m-1, r)
	} else {
		add(r, m-1)
	}
	for k := 1; k < m/2; k++ {
		add((r+k)%c, (r-k+c)%c)
	}
	return sortRound(round)
}

// ring colours the edges i -> i+1 mod n: even i, then odd i, and for odd
// n the last edge (n-1 -> 0) alone, as it shares rank 0 with edge 0.
func ring(n int) []Round {
	var even, odd, last Round
	for i := range n {
		p := Pair{Src: i, Dst: (i + 1) % n}
		switch {
		case n%2 == 1 && i == n-1:
			last = append(last, p)
		case i%2 == 0:
			even = append(even, p)
		default:
			odd = append(odd, p)
		}
	}
	rounds := []Round{even, odd}
	if last != nil {
		rounds = append(rounds, last)
	}
	return rounds
}

func sortRound(r Round) Round {
	slices.SortFunc(r, func(a, b Pair) int { return a.Src - b.Src })
	return r
}
