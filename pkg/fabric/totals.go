package fabric

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// summedUnits are the units whose figures add up over pairs measured at
// the same time: a bandwidth workload's bandwidth and message rate.
// Latency does not add up, and is not summed.
var summedUnits = map[string]bool{metric.BW.Unit: true, metric.MsgRate.Unit: true}

// totalled are the patterns RoundTotalLines sums: their rounds are
// concurrent pairs meant to load one link or host together.
var totalled = map[string]bool{PatternHalves: true, PatternIncast: true}

// RoundTotal is a round's aggregate for one bandwidth workload: its
// figures summed over the round's pairs, which ran at the same time
// (osu_mbw_mr's figure, under the halves pattern; the receiver's intake,
// under incast).
type RoundTotal struct {
	// Round is the round, 1-based; Rail its rail's device under a
	// rail-aligned schedule (a round's rails are summed apart), else "".
	Round int
	Rail  string
	// Workload is the workload ("write_bw").
	Workload string
	// Pairs are the round's pairs in the document, failed ones too, in
	// its order; Failed is how many of them failed.
	Pairs  []Pair
	Failed int
	// Sums are the workload's summed metrics, by metric name.
	Sums []MetricSum
}

// MetricSum is one metric summed over a round's pairs.
type MetricSum struct {
	// Metric is the figure's name ("write_bw.bw_gbps"), Unit its unit.
	Metric string
	Unit   string
	// Value is the sum over the Summed pairs: the round's pairs that were
	// measured and have a figure of Metric.
	Value  float64
	Summed int
	// Unclean: a summed pair's run was not clean (its matrix cell is
	// marked display.UncleanMark).
	Unclean bool
}

// RoundTotals sums, from the document alone, each round's pairs' figures
// of every bandwidth workload (the metrics in Gb/s or Mpps), counting the
// pairs that were measured only; rounds in order, then workloads in the
// document's order. It holds every pair of every round: meant for a
// schedule of few rounds such as halves, or incast's (at most
// MaxIncastWorldSize rounds). Its error is the pair log's.
func (d *Document) RoundTotals() ([]RoundTotal, error) {
	byWorkload := map[string][]string{}
	for _, m := range d.Metrics() {
		workload, key, _ := strings.Cut(m, ".")
		if x, ok := metric.ByKey(key); ok && summedUnits[x.Unit] {
			byWorkload[workload] = append(byWorkload[workload], m)
		}
	}
	if len(byWorkload) == 0 {
		return nil, nil
	}
	var workloads, others []string // the document's order, then the others sorted
	for _, w := range d.Workloads {
		if byWorkload[w] != nil && !slices.Contains(workloads, w) {
			workloads = append(workloads, w)
		}
	}
	for w := range byWorkload {
		if !slices.Contains(workloads, w) {
			others = append(others, w)
		}
	}
	slices.Sort(others)
	workloads = append(workloads, others...)
	type key struct {
		round int
		rail  int // the rail's place in d.Schedule.Rails; 0 without rails
	}
	railOf := map[int]int{}
	for i, r := range d.Schedule.Rails {
		for _, rank := range r.Ranks {
			railOf[rank] = i
		}
	}
	byRound := map[key][]RoundTotal{}
	err := d.EachPair(func(p *PairOutcome) error {
		k := key{p.Round, railOf[p.Src]}
		totals, ok := byRound[k]
		if !ok {
			for _, w := range workloads {
				t := RoundTotal{Round: p.Round, Workload: w}
				if d.Schedule.Rails != nil {
					t.Rail = d.Schedule.Rails[k.rail].Device
				}
				for _, m := range byWorkload[w] {
					_, unit := DescribeMetric(m)
					t.Sums = append(t.Sums, MetricSum{Metric: m, Unit: unit})
				}
				totals = append(totals, t)
			}
			byRound[k] = totals
		}
		for i := range totals {
			t := &totals[i]
			t.Pairs = append(t.Pairs, Pair{Src: p.Src, Dst: p.Dst})
			if !p.OK() {
				t.Failed++
				continue
			}
			for j := range t.Sums {
				s := &t.Sums[j]
				if v, ok := p.Figures.Get(s.Metric); ok {
					s.Value += v
					s.Summed++
					_, unclean, _ := p.caveatOf(s.Metric)
					s.Unclean = s.Unclean || unclean
				}
			}
		}
		return nil
	})
	keys := make([]key, 0, len(byRound))
	for k := range byRound {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.round != b.round {
			return a.round - b.round
		}
		return a.rail - b.rail
	})
	var out []RoundTotal
	for _, k := range keys {
		out = append(out, byRound[k]...)
	}
	return out, err
}

// RoundTotalsHeading heads RoundTotalLines.
const RoundTotalsHeading = "round totals: a round's pairs ran at once; their bandwidth and message rate summed (latency is not):"

// roundTotalsShown is how many of a round's pairs its line names.
const roundTotalsShown = 4

// RoundTotalLines are the round totals as rank 0's table prints them,
// for a halves or incast sweep, whose rounds' pairs share a link (nil for
// another pattern, or a probe): under incast a round's sum is what its
// receiver took in from all its senders at once. A heading,
// then a line a round and workload, "round 1 (4 pairs at once, 0->4
// 1->5 2->6 3->7): write_bw 3.21 Gb/s, 6.3 Mpps in all", a sum with a
// pair whose run was not clean marked as the matrices mark its cell,
// then the mark's footnote.
func RoundTotalLines(d *Document) ([]string, error) {
	if !totalled[d.Schedule.Pattern] || d.Probe {
		return nil, nil
	}
	totals, err := d.RoundTotals()
	if err != nil || len(totals) == 0 {
		return nil, err
	}
	lines := []string{RoundTotalsHeading}
	unclean := false
	for _, t := range totals {
		lines = append(lines, "  "+t.line())
		for _, s := range t.Sums {
			unclean = unclean || s.Unclean
		}
	}
	if unclean {
		lines = append(lines, display.UncleanNote)
	}
	return lines, nil
}

// line is t in words: "round 2 (4 pairs at once, 4->0 5->1 6->2 7->3):
// write_bw 3.2 Gb/s !, 6.3 Mpps ! in all (sum of 3 of 4 pairs, 1
// failed)".
func (t RoundTotal) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "round %d", t.Round)
	if t.Rail != "" {
		fmt.Fprintf(&b, ", rail %s", t.Rail)
	}
	fmt.Fprintf(&b, " (%s at once,", plural(len(t.Pairs), "pair"))
	for i, p := range t.Pairs {
		if i == roundTotalsShown {
			b.WriteString(" ...")
			break
		}
		fmt.Fprintf(&b, " %d->%d", p.Src, p.Dst)
	}
	fmt.Fprintf(&b, "): %s ", t.Workload)
	n := len(t.Pairs)
	same := !slices.ContainsFunc(t.Sums, func(s MetricSum) bool { return s.Summed != t.Sums[0].Summed })
	if same && t.Sums[0].Summed == 0 {
		fmt.Fprintf(&b, "no pair measured (%d of %d failed)", t.Failed, n)
		return b.String()
	}
	for i, s := range t.Sums {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(display.Marked(display.Significant(s.Value, 4)+" "+s.Unit, false, s.Unclean))
		if !same {
			fmt.Fprintf(&b, " (%d of %d pairs)", s.Summed, n)
		}
	}
	b.WriteString(" in all")
	var notes []string
	if k := t.Sums[0].Summed; same && k < n {
		notes = append(notes, fmt.Sprintf("sum of %d of %d pairs", k, n))
	}
	if t.Failed > 0 {
		notes = append(notes, fmt.Sprintf("%d failed", t.Failed))
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
	}
	return b.String()
}
