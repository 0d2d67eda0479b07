package results

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// OpenLoop is what an open-loop latency run measured beside its headline
// latency (which runs from each operation's due time): operations were
// issued on a fixed schedule at RateOPS a second.
type OpenLoop struct {
	RateOPS     int      `json:"rate_ops"`
	AchievedOPS *float64 `json:"achieved_ops"`
	Issued      uint64   `json:"issued"`
	Behind      uint64   `json:"behind"`
	// ServiceUS is each operation's time from its post to its completion;
	// LagUS its time from when it was due to its post.
	ServiceUS *Latency `json:"service_us"`
	LagUS     *Latency `json:"lag_us"`
}

// LoadCurve is a document's verdict on one latency-against-load curve: a
// latency point run at several offered rates (the writer's own type).
type LoadCurve = report.CurveVerdict

// checkOpenLoop refuses open-loop figures a chart cannot place.
func checkOpenLoop(o *OpenLoop) error {
	if o.RateOPS < 1 {
		return fmt.Errorf("open_loop.rate_ops is %d: want an offered rate of 1 operation a second or more", o.RateOPS)
	}
	return positive("open_loop.achieved_ops", o.AchievedOPS)
}

// checkLoadCurve refuses a load curve without rates or whose knee is not
// one of them.
func checkLoadCurve(c *LoadCurve) error {
	if len(c.RatesOPS) == 0 {
		return fmt.Errorf("rates_ops is empty: want the curve's offered rates")
	}
	for _, r := range c.RatesOPS {
		if r < 1 {
			return fmt.Errorf("rates_ops holds %d: want offered rates of 1 operation a second or more", r)
		}
	}
	if c.KneeOPS != nil && !slices.Contains(c.RatesOPS, *c.KneeOPS) {
		return fmt.Errorf("knee_ops %d is not one of rates_ops %v: want one of them, or null", *c.KneeOPS, c.RatesOPS)
	}
	return nil
}

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
func loadGroups(s *Side) []*loadGroup {
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
// load curve: the latency-against-load chart shows them, the
// latency-against-size chart leaves them out.
func onLoadCurve(sides []*Side) map[*Point]bool {
	out := map[*Point]bool{}
	for _, s := range sides {
		for _, g := range loadGroups(s) {
			for _, p := range g.open {
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
	var docs []*Document
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
func (g *loadGroup) covers(d *Document, c *LoadCurve) bool {
	var rates []int
	for _, p := range g.open {
		if slices.Contains(p.Docs, d) {
			rates = append(rates, p.Key.RateOPS())
		}
	}
	return slices.Equal(rates, c.RatesOPS)
}
