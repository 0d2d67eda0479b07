package fabric

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// railMembers is a world of hosts with a rank a device, the devices
// named by devs in rank order.
func railMembers(devs ...string) []Member {
	m := make([]Member, len(devs))
	for i, d := range devs {
		m[i] = Member{Rank: i, Device: d}
	}
	return m
}

// TestRailsOf: ranks group by device name, rails in the order of their
// lowest rank.
func TestRailsOf(t *testing.T) {
	got := RailsOf(railMembers("mlx5_1", "mlx5_0", "mlx5_1", "mlx5_0", "mlx5_2"))
	want := []Rail{{"mlx5_1", []int{0, 2}}, {"mlx5_0", []int{1, 3}}, {"mlx5_2", []int{4}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rails %+v, want %+v", got, want)
	}
	if s := RailsText(got); s != "mlx5_1: ranks 0 2; mlx5_0: ranks 1 3; mlx5_2: rank 4" {
		t.Errorf("RailsText %q", s)
	}
}

// TestRailRounds: under --rails every pattern runs within each rail: no
// pair crosses rails, every pair the pattern gives a rail's ranks is
// there once, a round holds each rank at most once, and the rails' rounds
// run at once (as many rounds as the longest rail's schedule).
func TestRailRounds(t *testing.T) {
	// Two hosts of two devices, and a third host with one of them.
	rails := RailsOf(railMembers("d0", "d1", "d0", "d1", "d0"))
	for _, pattern := range []string{PatternPairs, PatternRing, PatternOneToAll, PatternIncast} {
		count, at, err := railRounds(pattern, rails)
		if err != nil {
			t.Fatalf("%s: %v", pattern, err)
		}
		railOf := map[int]string{}
		for _, r := range rails {
			for _, k := range r.Ranks {
				railOf[k] = r.Device
			}
		}
		got := map[Pair]int{}
		for i := range count {
			busy := map[int]bool{}
			for _, p := range at(i) {
				if railOf[p.Src] != railOf[p.Dst] {
					t.Errorf("%s round %d: %d->%d crosses rails", pattern, i+1, p.Src, p.Dst)
				}
				if busy[p.Src] || (busy[p.Dst] && pattern != PatternIncast) {
					t.Errorf("%s round %d: a rank twice (%d->%d)", pattern, i+1, p.Src, p.Dst)
				}
				busy[p.Src], busy[p.Dst] = true, true
				got[p]++
			}
		}
		most := 0
		want := map[Pair]int{}
		for _, r := range rails {
			rs, err := Schedule(pattern, len(r.Ranks))
			if err != nil {
				t.Fatal(err)
			}
			most = max(most, len(rs))
			for _, round := range rs {
				for _, p := range round {
					want[Pair{r.Ranks[p.Src], r.Ranks[p.Dst]}]++
				}
			}
		}
		if !reflect.DeepEqual(got, want) || count != most {
			t.Errorf("%s: %d rounds, pairs %v; want %d rounds, %v", pattern, count, got, most, want)
		}
	}
}

// TestRailRoundsRefused: a pattern a rail's ranks cannot take names the
// rail; rails of one rank each have no pair to measure.
func TestRailRoundsRefused(t *testing.T) {
	_, _, err := railRounds(PatternHalves, RailsOf(railMembers("d0", "d1", "d0", "d1", "d0")))
	if err == nil || !strings.Contains(err.Error(), "--rails: rail d0 (ranks 0 2 4): pattern halves for 3 ranks: want an even number") {
		t.Errorf("halves on a rail of 3: %v", err)
	}
	_, _, err = railRounds(PatternPairs, RailsOf(railMembers("d0", "d1", "d2")))
	if err == nil || !strings.Contains(err.Error(), "no two ranks measure on devices of the same name (d0: rank 0; d1: rank 1; d2: rank 2)") {
		t.Errorf("one rank a rail: %v", err)
	}
}

// TestScheduleText: every view names the schedule so, its rails too.
func TestScheduleText(t *testing.T) {
	s := ScheduleInfo{Pattern: PatternPairs, Rounds: 2, Pairs: 4}
	if got := s.Text(); got != "pattern pairs: 4 pairs in 2 rounds" {
		t.Errorf("%q", got)
	}
	s.Rails = []Rail{{"d0", []int{0, 2}}, {"d1", []int{1, 3}}}
	if got := s.Text(); got != "pattern pairs: 4 pairs in 2 rounds, rail-aligned (no pair across rails; d0: ranks 0 2; d1: ranks 1 3)" {
		t.Errorf("%q", got)
	}
}

// TestSweepRails: four ranks on two rails sweep all pairs rail-aligned:
// the document names the rails, and its four pairs are within them, the
// two rails' pairs in the same rounds.
func TestSweepRails(t *testing.T) {
	w := newWorld(t, 4)
	w.devices = []string{"d0", "d1", "d0", "d1"}
	w.cfg.Rails = true
	doc, errs := w.run(t)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	want := ScheduleInfo{Pattern: PatternPairs, Rounds: 2, Pairs: 4, Rails: []Rail{{"d0", []int{0, 2}}, {"d1", []int{1, 3}}}}
	if !reflect.DeepEqual(doc.Schedule, want) || len(doc.Pairs) != 4 {
		t.Fatalf("schedule %+v, %d pairs; want %+v", doc.Schedule, len(doc.Pairs), want)
	}
	perRound := map[int][]string{}
	for _, p := range doc.Pairs {
		if w.devices[p.Src] != w.devices[p.Dst] {
			t.Errorf("pair %d->%d crosses rails", p.Src, p.Dst)
		}
		perRound[p.Round] = append(perRound[p.Round], w.devices[p.Src])
	}
	for r, rails := range perRound {
		if slices.Sort(rails); !slices.Equal(rails, []string{"d0", "d1"}) {
			t.Errorf("round %d: pairs of rails %q, want one of each at once", r, rails)
		}
	}
}
