package fabric

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// caveatCount is one workload's caveats over the sweep's measured pairs.
type caveatCount struct {
	workload string
	// pairs are the measured pairs with a figure of the workload; unclean
	// and thin count those with the caveat, the first few of them listed.
	pairs         int
	unclean, thin int
	uncleanPairs  []caveatPair
	thinPairs     []caveatPair
}

// caveatPair is a pair with a caveat, and what it is: the counters'
// verdict, or the thin percentiles and their samples ("p99 of 50
// samples").
type caveatPair struct {
	src, dst int
	what     string
}

// caveatCounts counts each workload's unclean and thin pairs, in the
// document's order of workloads, listing the first keep pairs of each
// (all when keep <= 0).
func (d *Document) caveatCounts(keep int) ([]*caveatCount, error) {
	byWorkload := map[string]*caveatCount{}
	var order []string
	get := func(w string) *caveatCount {
		c, ok := byWorkload[w]
		if !ok {
			c = &caveatCount{workload: w}
			byWorkload[w] = c
			order = append(order, w)
		}
		return c
	}
	for _, w := range d.Workloads {
		get(w)
	}
	err := d.EachPair(func(p *PairOutcome) error {
		if !p.OK() {
			return nil
		}
		seen := map[string]bool{}
		for _, f := range p.Figures {
			w, _, _ := strings.Cut(f.Metric, ".")
			if seen[w] {
				continue
			}
			seen[w] = true
			c := get(w)
			c.pairs++
			if unclean, what := pairCaveat(p, w); unclean {
				c.unclean++
				if keep <= 0 || len(c.uncleanPairs) < keep {
					c.uncleanPairs = append(c.uncleanPairs, caveatPair{p.Src, p.Dst, what})
				}
			}
			if what := thinPercentiles(p, w); what != "" {
				c.thin++
				if keep <= 0 || len(c.thinPairs) < keep {
					c.thinPairs = append(c.thinPairs, caveatPair{p.Src, p.Dst, what})
				}
			}
		}
		return nil
	})
	out := make([]*caveatCount, 0, len(order))
	for _, w := range order {
		if c := byWorkload[w]; c.unclean > 0 || c.thin > 0 {
			out = append(out, c)
		}
	}
	return out, err
}

// pairCaveat says whether p's run of workload was not clean, and what
// its counters saw.
func pairCaveat(p *PairOutcome, workload string) (bool, string) {
	for _, c := range p.Caveats() {
		if c.Workload == workload && c.Unclean {
			return true, orDash(c.Counters)
		}
	}
	return false, ""
}

// thinPercentiles names the percentiles of p's figures of workload that
// are from fewer samples than they need: "p50, p99 of 1 samples"; ""
// when none is.
func thinPercentiles(p *PairOutcome, workload string) string {
	var qs []string
	var n int64
	for _, f := range p.Figures {
		w, key, _ := strings.Cut(f.Metric, ".")
		if w != workload {
			continue
		}
		if thin, _, c := p.caveatOf(f.Metric); thin {
			m, _ := metric.ByKey(key)
			qs, n = append(qs, "p"+strconv.FormatFloat(m.Percentile, 'f', -1, 64)), c.Samples
		}
	}
	if len(qs) == 0 {
		return ""
	}
	slices.Sort(qs)
	return fmt.Sprintf("%s of %d samples", strings.Join(qs, ", "), n)
}

// caveatSummary counts them in a line's words, the unclean first as the
// footnotes are: "6 of 6 write_bw pairs not clean, 2 of 6 write_lat
// pairs thin"; "" without any.
func caveatSummary(counts []*caveatCount) string {
	var parts []string
	for _, thin := range []bool{false, true} {
		for _, c := range counts {
			if n, what := c.of(thin); n > 0 {
				parts = append(parts, fmt.Sprintf("%d of %s %s", n, plural(c.pairs, c.workload+" pair"), what))
			}
		}
	}
	return strings.Join(parts, ", ")
}

// of is c's count of unclean or thin pairs, with its word.
func (c *caveatCount) of(thin bool) (int, string) {
	if thin {
		return c.thin, display.ThinWhat
	}
	return c.unclean, display.UncleanWhat
}

// writeCaveats lists the unclean then the thin pairs of each workload,
// headed by the matrices' footnotes: "6 of 6 write_bw pairs ! not clean:
// the device's error counters moved ...", then a line a pair naming what
// its counters saw ("counters: not clean: ...", as the run table's note),
// or its thin percentiles ("p99 of 50 samples").
func writeCaveats(ew *display.ErrWriter, doc *Document, counts []*caveatCount, limit int) {
	for _, thin := range []bool{false, true} {
		for _, c := range counts {
			n, _ := c.of(thin)
			if n == 0 {
				continue
			}
			note, pairs, prefix := display.UncleanNote, c.uncleanPairs, "counters: "
			if thin {
				note, pairs, prefix = display.ThinNote, c.thinPairs, ""
			}
			ew.Printf("%d of %s %s\n", n, plural(c.pairs, c.workload+" pair"), note)
			for _, p := range pairs {
				ew.Printf("  %s -> %s: %s%s\n", doc.endpoint(p.src), doc.endpoint(p.dst), prefix, p.what)
			}
			more(ew, n, limit)
		}
	}
}
