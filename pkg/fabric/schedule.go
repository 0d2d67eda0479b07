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
)

// Patterns lists the schedule patterns in the order the help shows them.
var Patterns = []string{PatternPairs, PatternRing, PatternOneToAll}

// Pair is one measurement: Src measures against Dst, which serves.
type Pair struct {
	Src int `json:"src"`
	Dst int `json:"dst"`
}

// Round is a set of pairs measured at the same time; no rank is in more
// than one of its pairs.
type Round []Pair

// Schedule returns the rounds of pattern for n ranks, pairs sorted by Src
// within a round. n must be 2 to MaxWorldSize.
func Schedule(pattern string, n int) ([]Round, error) {
	if n < 2 || n > MaxWorldSize {
		return nil, fmt.Errorf("schedule for %d ranks: want 2 to %d", n, MaxWorldSize)
	}
	switch pattern {
	case PatternPairs:
		return allPairs(n), nil
	case PatternRing:
		return ring(n), nil
	case PatternOneToAll:
		return oneToAll(n), nil
	}
	return nil, fmt.Errorf("pattern %q: want %s", pattern, strings.Join(Patterns, ", "))
}

// allPairs is the circle method: players 0..m-2 sit on a circle and m-1 in
// the middle (m = n, or n+1 with a phantom player whose partner sits out).
// In round r the middle plays r, and r+k plays r-k (mod m-1) for k = 1 ..
// m/2-1. Players a, b on the circle meet in the round r with a+b = 2r (mod
// m-1), which is unique as m-1 is odd. The second half of the rounds
// repeats the first with every pair reversed.
func allPairs(n int) []Round {
	m := n + n%2
	c := m - 1 // players on the circle
	first := make([]Round, 0, c)
	for r := range c {
		round := make(Round, 0, m/2)
		add := func(a, b int) {
			if a < n && b < n { // a phantom's partner sits out
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
		first = append(first, sortRound(round))
	}
	rounds := first
	for _, r := range first {
		rev := make(Round, len(r))
		for i, p := range r {
			rev[i] = Pair{Src: p.Dst, Dst: p.Src}
		}
		rounds = append(rounds, sortRound(rev))
	}
	return rounds
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

// oneToAll measures 0 -> i then i -> 0 for every i, one pair per round.
func oneToAll(n int) []Round {
	rounds := make([]Round, 0, 2*(n-1))
	for i := 1; i < n; i++ {
		rounds = append(rounds, Round{{Src: 0, Dst: i}}, Round{{Src: i, Dst: 0}})
	}
	return rounds
}

func sortRound(r Round) Round {
	slices.SortFunc(r, func(a, b Pair) int { return a.Src - b.Src })
	return r
}
