package fabric

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Rail is the ranks that measure on devices of one name: with several
// RDMA devices a host and a rank a device (launchers place them so: -d
// mlx5_$LOCAL_RANK), the ranks of device i of every host, which a
// rail-aligned fabric cables to one switch plane.
type Rail struct {
	Device string `json:"device"`
	Ranks  []int  `json:"ranks"`
}

// RailsOf groups the members by their device's name, each rail's ranks
// in order, the rails in the order of their lowest rank.
func RailsOf(members []Member) []Rail {
	var rails []Rail
	at := map[string]int{}
	for _, m := range members {
		i, ok := at[m.Device]
		if !ok {
			i = len(rails)
			at[m.Device] = i
			rails = append(rails, Rail{Device: m.Device})
		}
		rails[i].Ranks = append(rails[i].Ranks, m.Rank)
	}
	for _, r := range rails {
		slices.Sort(r.Ranks)
	}
	return rails
}

// railRounds is pattern's schedule within each rail (--rails): a rail's
// ranks are scheduled as a world of their own, no pair crosses rails, and
// round i runs round i of every rail that has one, at once (the rails'
// ranks are apart, so a round's rule holds). A rail of one rank has no
// pair; at least one rail must have two.
func railRounds(pattern string, rails []Rail) (int, func(int) Round, error) {
	type railSchedule struct {
		ranks []int
		count int
		at    func(int) Round
	}
	var scheds []railSchedule
	most := 0
	for _, r := range rails {
		if len(r.Ranks) < 2 {
			continue
		}
		count, at, err := rounds(pattern, len(r.Ranks))
		if err != nil {
			return 0, nil, fmt.Errorf("--rails: rail %s (ranks %s): %w", r.Device, ranksText(r.Ranks), err)
		}
		scheds = append(scheds, railSchedule{ranks: r.Ranks, count: count, at: at})
		most = max(most, count)
	}
	if len(scheds) == 0 {
		return 0, nil, fmt.Errorf("--rails: no two ranks measure on devices of the same name (%s): a rail needs a rank on device i of two hosts", RailsText(rails))
	}
	return most, func(i int) Round {
		var round Round
		for _, s := range scheds {
			if i >= s.count {
				continue
			}
			for _, p := range s.at(i) {
				round = append(round, Pair{Src: s.ranks[p.Src], Dst: s.ranks[p.Dst]})
			}
		}
		return sortRound(round)
	}, nil
}

// scheduleOf is the sweep's schedule: pattern over the whole world, or
// within each rail when rails is not nil.
func scheduleOf(pattern string, n int, rails []Rail) (int, func(int) Round, error) {
	if rails == nil {
		return rounds(pattern, n)
	}
	return railRounds(pattern, rails)
}

// RailsText names the rails and their ranks: "rxe0: ranks 0 2; rxe1:
// ranks 1 3".
func RailsText(rails []Rail) string {
	parts := make([]string, len(rails))
	for i, r := range rails {
		word := "ranks"
		if len(r.Ranks) == 1 {
			word = "rank"
		}
		parts[i] = fmt.Sprintf("%s: %s %s", r.Device, word, ranksText(r.Ranks))
	}
	return strings.Join(parts, "; ")
}

func ranksText(ranks []int) string {
	s := make([]string, len(ranks))
	for i, r := range ranks {
		s[i] = strconv.Itoa(r)
	}
	return strings.Join(s, " ")
}

// Text is the schedule in words, as every view names it: "pattern pairs:
// 12 pairs in 6 rounds", and its rails when rail-aligned.
func (s ScheduleInfo) Text() string {
	t := fmt.Sprintf("pattern %s: %d pairs in %d rounds", s.Pattern, s.Pairs, s.Rounds)
	if s.Rails != nil {
		t += ", rail-aligned (no pair across rails; " + RailsText(s.Rails) + ")"
	}
	return t
}
