package fabric

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// WriteFindings writes what is wrong with the fabric, from the document:
// the failed pairs, the ranks that left the sweep, the suspects with their
// re-measurement's verdict (outliers first), and a tally of how many
// failed pairs (in the sweep or re-measured) and outliers each host is in
// (the bad cable or port shows as the host most often named). Each list
// shows at most limit lines (all when limit <= 0). It ends with "no
// failed pair, no outlier" when there is neither. The pairs whose
// counters saw their run unclean, or whose percentiles are from too few
// samples, are listed by workload (caveatfindings.go) and counted on that
// line too: "...; 6 of 6 write_bw pairs not clean".
func WriteFindings(w io.Writer, doc *Document, limit int) error {
	ew := &display.ErrWriter{W: w}
	failed, outliers := doc.FailedCount(), doc.Outliers()
	tally := make(map[int]int)     // rank -> distinct pairs
	counted := make(map[Pair]bool) // a pair counts once, whatever its metrics
	count := func(src, dst int) {
		if p := (Pair{Src: src, Dst: dst}); !counted[p] {
			counted[p] = true
			tally[src]++
			tally[dst]++
		}
	}
	partial := ""
	if doc.Partial() {
		partial = fmt.Sprintf(" of a partial sweep (%s)", orDash(doc.Reason))
	}
	if failed > 0 {
		ew.Printf("%d of %s%s failed:\n", failed, plural(doc.PairCount(), "pair"), partial)
		i := 0
		if err := doc.EachPair(func(p *PairOutcome) error {
			if p.OK() {
				return nil
			}
			count(p.Src, p.Dst)
			if limit <= 0 || i < limit {
				ew.Printf("  round %d: %s -> %s: %s\n", p.Round, doc.endpoint(p.Src), doc.endpoint(p.Dst), p.Error)
			}
			i++
			return nil
		}); err != nil {
			return err
		}
		more(ew, failed, limit)
	}
	if len(doc.Departed) > 0 {
		ew.Printf("%s left the sweep:\n", plural(len(doc.Departed), "rank"))
		for i, d := range doc.Departed {
			if limit <= 0 || i < limit {
				ew.Printf("  %s in round %d: %s\n", doc.endpoint(d.Rank), d.Round, d.Reason)
			}
		}
		more(ew, len(doc.Departed), limit)
	}
	if len(doc.Suspects) > 0 {
		writeSuspects(ew, doc, limit)
	}
	counts, err := doc.caveatCounts(limit)
	if err != nil {
		return err
	}
	writeCaveats(ew, doc, counts, limit)
	caveats := ""
	if s := caveatSummary(counts); s != "" {
		caveats = "; " + s
	}
	for _, o := range outliers {
		count(o.Src.Rank, o.Dst.Rank)
	}
	rechecks := doc.FailedRechecks()
	for _, s := range rechecks {
		count(s.Recheck.Failed.Src, s.Recheck.Failed.Dst)
	}
	if failed == 0 && len(outliers) == 0 && len(rechecks) == 0 {
		if doc.Probe {
			ew.Printf("no failed pair: %s probed%s%s\n", plural(doc.PairCount(), "pair"), partial, caveats)
			return ew.Done("write findings")
		}
		ew.Printf("no failed pair, no outlier (threshold %g%% worse than the median) in %s%s%s\n", doc.ThresholdPct, plural(doc.PairCount(), "pair"), partial, caveats)
		return ew.Done("write findings")
	}
	ranks := make([]int, 0, len(tally))
	for r := range tally {
		ranks = append(ranks, r)
	}
	slices.SortFunc(ranks, func(a, b int) int {
		if c := cmp.Compare(tally[b], tally[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	ew.Printf("hosts by the failed or outlying pairs they are in:\n")
	for i, r := range ranks {
		if limit <= 0 || i < limit {
			ew.Printf("  %s: %d\n", doc.endpoint(r), tally[r])
		}
	}
	more(ew, len(ranks), limit)
	return ew.Done("write findings")
}

// verdictOrder lists the suspects' verdicts in the order WriteFindings
// shows them: what needs a look first.
var verdictOrder = []string{"outlier", "undecided", "not re-measured", "cleared"}

// writeSuspects writes the suspects' heading, with a count of each
// verdict, then a line a suspect, outliers first.
func writeSuspects(ew *display.ErrWriter, doc *Document, limit int) {
	byFinding := map[string][]*Suspect{}
	for i := range doc.Suspects {
		s := &doc.Suspects[i]
		byFinding[s.Finding()] = append(byFinding[s.Finding()], s)
	}
	how := "not re-measured"
	if c := doc.Recheck; c != nil {
		how = fmt.Sprintf("each re-measured alternately with a reference pair (the median of the others) until a %s paired interval of the change from the reference decides, at most %d times",
			compare.FormatConfidence(c.Confidence), c.MaxPairs)
		if c.TimeNS > 0 { // documents before the time bound have none
			how += fmt.Sprintf(" and %s in all", time.Duration(c.TimeNS))
		}
	}
	var counts []string
	for _, v := range verdictOrder {
		switch n := len(byFinding[v]); {
		case v == "outlier":
			counts = append(counts, plural(n, v))
		case n > 0:
			counts = append(counts, fmt.Sprintf("%d %s", n, v))
		}
	}
	ew.Printf("%s, worse than the median by more than %g%% in the sweep; %s: %s\n",
		plural(len(doc.Suspects), "suspect"), doc.ThresholdPct, how, strings.Join(counts, ", "))
	shown := 0
	for _, v := range verdictOrder {
		for _, s := range byFinding[v] {
			if limit <= 0 || shown < limit {
				ew.Printf("  %s: %s: %s -> %s: %s (median %s, %.1f%% worse); %s\n", s.Finding(), s.Metric, s.Src, s.Dst,
					display.Significant(s.Value, 4), display.Significant(s.Median, 4), s.WorsePct, recheckText(s))
			}
			shown++
		}
	}
	more(ew, len(doc.Suspects), limit)
}

// plural is "1 pair", "2 pairs".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func more(ew *display.ErrWriter, n, limit int) {
	if limit > 0 && n > limit {
		ew.Printf("  ... %d more\n", n-limit)
	}
}
