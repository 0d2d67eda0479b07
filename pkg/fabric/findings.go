package fabric

import (
	"cmp"
	"fmt"
	"io"
	"slices"
)

// WriteFindings writes what is wrong with the fabric: the failed pairs,
// the ranks that left the sweep, the outliers, and a tally of how many of
// those each host is in (the bad cable or port shows as the host most
// often named). Each list shows at most limit lines (all when limit <= 0).
// It writes "no failed pair, no outlier" when there is nothing.
func WriteFindings(w io.Writer, doc *Document, outliers []Outlier, thresholdPct float64, limit int) error {
	ew := &errWriter{w: w}
	failed := doc.Failed()
	if len(failed) == 0 && len(outliers) == 0 {
		ew.printf("no failed pair, no outlier (threshold %g%% worse than the median) in %s\n", thresholdPct, plural(len(doc.Pairs), "pair"))
		return ew.done("write findings")
	}
	tally := make(map[int]int)     // rank -> distinct pairs
	counted := make(map[Pair]bool) // a pair counts once, whatever its metrics
	count := func(src, dst int) {
		if p := (Pair{Src: src, Dst: dst}); !counted[p] {
			counted[p] = true
			tally[src]++
			tally[dst]++
		}
	}
	if len(failed) > 0 {
		ew.printf("%d of %s failed:\n", len(failed), plural(len(doc.Pairs), "pair"))
		for i, p := range failed {
			count(p.Src, p.Dst)
			if limit <= 0 || i < limit {
				ew.printf("  round %d: %s -> %s: %s\n", p.Round, doc.endpoint(p.Src), doc.endpoint(p.Dst), p.Error)
			}
		}
		more(ew, len(failed), limit)
	}
	if len(doc.Departed) > 0 {
		ew.printf("%s left the sweep:\n", plural(len(doc.Departed), "rank"))
		for i, d := range doc.Departed {
			if limit <= 0 || i < limit {
				ew.printf("  %s in round %d: %s\n", doc.endpoint(d.Rank), d.Round, d.Reason)
			}
		}
		more(ew, len(doc.Departed), limit)
	}
	if len(outliers) > 0 {
		ew.printf("%s (worse than the median by more than %g%%):\n", plural(len(outliers), "outlier"), thresholdPct)
		for i, o := range outliers {
			count(o.Src.Rank, o.Dst.Rank)
			if limit <= 0 || i < limit {
				ew.printf("  %s: %s -> %s: %s (median %s, %.1f%% worse)\n", o.Metric, o.Src, o.Dst,
					formatFigure(o.Value), formatFigure(o.Median), o.WorsePct)
			}
		}
		more(ew, len(outliers), limit)
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
	ew.printf("hosts by the failed or outlying pairs they are in:\n")
	for i, r := range ranks {
		if limit <= 0 || i < limit {
			ew.printf("  %s: %d\n", doc.endpoint(r), tally[r])
		}
	}
	more(ew, len(ranks), limit)
	return ew.done("write findings")
}

// plural is "1 pair", "2 pairs".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func more(ew *errWriter, n, limit int) {
	if limit > 0 && n > limit {
		ew.printf("  ... %d more\n", n-limit)
	}
}

func (e *errWriter) done(what string) error {
	if e.err != nil {
		return fmt.Errorf("%s: %w", what, e.err)
	}
	return nil
}
