package results

import (
	"slices"
	"strconv"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// OpenLoop and LoadCurve are the document's (pkg/document).
type (
	OpenLoop  = document.OpenLoop
	LoadCurve = document.LoadCurve
)

// RateOPS is the point's offered rate in operations a second: 0 for a
// closed-loop point.
func (k Key) RateOPS() int {
	n, _ := strconv.Atoi(k.Param("rate"))
	return n
}

// loadGroup is a latency point measured at two offered rates or more on
// one side: its open-loop points by rate, ascending, and its closed-loop
// point, nil when there is none.
type loadGroup struct {
	key    Key // the point's key with its rate blanked
	closed *Point
	open   []*Point
}

// loadGroups finds the side's load curves, in the order of their first
// point.
func loadGroups(s *Group) []*loadGroup {
	var out []*loadGroup
	byKey := map[Key]*loadGroup{}
	for _, p := range s.Points {
		if !p.Latency {
			continue
		}
		k := p.Key.without([]string{"rate"})
		g := byKey[k]
		if g == nil {
			g = &loadGroup{key: k}
			byKey[k] = g
			out = append(out, g)
		}
		if p.Key.RateOPS() == 0 {
			g.closed = p
		} else {
			g.open = append(g.open, p)
		}
	}
	out = slices.DeleteFunc(out, func(g *loadGroup) bool { return len(g.open) < 2 })
	for _, g := range out {
		slices.SortStableFunc(g.open, func(a, b *Point) int { return a.Key.RateOPS() - b.Key.RateOPS() })
	}
	return out
}

// onLoadCurve says which of the side's points are open-loop points of a
// load curve or levels of a loaded-latency curve: their own charts show
// them, the latency-against-size chart leaves them out.
func onLoadCurve(sides []*Group) map[*Point]bool {
	out := map[*Point]bool{}
	for _, s := range sides {
		for _, g := range loadGroups(s) {
			for _, p := range g.open {
				out[p] = true
			}
		}
		for _, g := range loadedGroups(s) {
			for _, p := range g.points {
				out[p] = true
			}
		}
	}
	return out
}

// verdict is the documents' knee and summary of a load curve: the knee
// the documents holding it recorded (the lowest, should they differ) and
// their summaries, each with its file when there are several.
func (g *loadGroup) verdict() (kneeOPS int, summaries []string) {
	var docs []*document.Document
	for _, p := range g.open {
		for _, d := range p.Docs {
			if !slices.Contains(docs, d) {
				docs = append(docs, d)
			}
		}
	}
	for _, d := range docs {
		for _, c := range d.LoadCurves {
			if c.Workload != g.key.Workload || c.SizeBytes != g.key.SizeBytes || !g.covers(d, c) {
				continue
			}
			if c.KneeOPS != nil && (kneeOPS == 0 || *c.KneeOPS < kneeOPS) {
				kneeOPS = *c.KneeOPS
			}
			s := c.Summary
			if len(docs) > 1 {
				s = d.Path + ": " + s
			}
			if s != "" {
				summaries = append(summaries, s)
			}
			break
		}
	}
	return kneeOPS, summaries
}

// covers says whether curve c of document d is this group's: its rates
// are those d measured the group's point at. (A curve names its workload
// and size only.)
func (g *loadGroup) covers(d *document.Document, c *LoadCurve) bool {
	var rates []int
	for _, p := range g.open {
		if slices.Contains(p.Docs, d) {
			rates = append(rates, p.Key.RateOPS())
		}
	}
	return slices.Equal(rates, c.RatesOPS)
}
