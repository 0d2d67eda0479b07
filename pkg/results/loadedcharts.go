package results

import (
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
)

// LoadedChart is the input of one loaded-latency chart: a latency point
// measured open-loop at one rate beside several loader levels, a curve
// per side.
type LoadedChart struct {
	Name      string // "loaded_write_lat_RC_poll_64B_2000ops"
	Title     string
	Curves    []plot.LoadedCurve
	Summaries []string // the documents' loaded_curves summaries
}

// LoadersOf is the point's loader count (params loaders): 0 for none.
func (k Key) LoadersOf() int {
	n, _ := strconv.Atoi(k.Param("loaders"))
	return n
}

// loadedGroup is a point measured at two loader levels or more on one
// side, at one offered rate: its points by level, ascending.
type loadedGroup struct {
	key    Key // the point's key with its loaders blanked
	points []*Point
}

// loadedGroups finds the side's loaded-latency curves, in the order of
// their first point.
func loadedGroups(s *Group) []*loadedGroup {
	var out []*loadedGroup
	byKey := map[Key]*loadedGroup{}
	for _, p := range s.Points {
		if !p.Latency || p.Key.RateOPS() == 0 {
			continue
		}
		k := p.Key.without([]string{"loaders"})
		g := byKey[k]
		if g == nil {
			g = &loadedGroup{key: k}
			byKey[k] = g
			out = append(out, g)
		}
		g.points = append(g.points, p)
	}
	out = slices.DeleteFunc(out, func(g *loadedGroup) bool {
		return len(g.points) < 2 || !slices.ContainsFunc(g.points, func(p *Point) bool { return p.Key.LoadersOf() > 0 })
	})
	for _, g := range out {
		slices.SortStableFunc(g.points, func(a, b *Point) int { return a.Key.LoadersOf() - b.Key.LoadersOf() })
	}
	return out
}

// LoadedCharts returns a loaded-latency chart for every latency point the
// sides measured beside two loader levels or more: p50, p99 and p99.9 at
// each level against the loaders' bandwidth, and the knee the documents
// recorded.
func LoadedCharts(sides []*Group) []LoadedChart {
	var out []LoadedChart
	idx := map[Key]int{}
	for _, s := range sides {
		for _, g := range loadedGroups(s) {
			var all []*Point
			for _, sd := range sides {
				all = append(all, sd.Points...)
			}
			also := maps.Clone(varying(all, nil)[g.key.coarse()])
			delete(also, "loaders")
			label := Describe(g.key, also)
			i, ok := idx[g.key]
			if !ok {
				i = len(out)
				idx[g.key] = i
				out = append(out, LoadedChart{Name: "loaded_" + FileName(label), Title: label + ": latency against loaders' bandwidth"})
			}
			name := label
			if len(sides) > 1 {
				name = sideName(s)
			}
			knee, sums := g.verdict()
			c := plot.LoadedCurve{Name: name, Family: familyOf(g.points[0]), KneeLoaders: knee}
			for _, p := range g.points {
				p50, ok := p.Figure(metric.LatP50.Name)
				if !ok {
					continue
				}
				c.Points = append(c.Points, plot.LoadedPoint{Loaders: p.Key.LoadersOf(), LoadersGbps: loadersGbps(p), P50US: p50,
					P99US: figureOrNaN(p, metric.LatP99.Name), P99_9US: figureOrNaN(p, metric.LatP99_9.Name), Caveat: caveatOf(p)})
			}
			if len(c.Points) == 0 {
				continue
			}
			if len(sides) > 1 {
				for j := range sums {
					sums[j] = sideName(s) + ": " + sums[j]
				}
			}
			out[i].Curves = append(out[i].Curves, c)
			out[i].Summaries = append(out[i].Summaries, sums...)
		}
	}
	return out
}

// loadersGbps is the loaders' bandwidth of a point's first result: 0 for
// the unloaded level, NaN where it was not timed.
func loadersGbps(p *Point) float64 {
	l := p.Results[0].Loaded
	switch {
	case l == nil:
		return 0
	case l.BwGbps == nil:
		return math.NaN()
	}
	return *l.BwGbps
}

// verdict is the documents' knee (-1 for none) and summaries of a loaded
// curve.
func (g *loadedGroup) verdict() (knee int, summaries []string) {
	knee = -1
	var docs []*document.Document
	for _, p := range g.points {
		for _, d := range p.Docs {
			if !slices.Contains(docs, d) {
				docs = append(docs, d)
			}
		}
	}
	for _, d := range docs {
		for _, c := range d.LoadedCurves {
			if c.Workload != g.key.Workload || c.SizeBytes != g.key.SizeBytes || c.RateOPS != g.key.RateOPS() {
				continue
			}
			if c.KneeLoaders != nil && (knee < 0 || *c.KneeLoaders < knee) {
				knee = *c.KneeLoaders
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
	return knee, summaries
}

// LoadedTable tabulates a side's loaded-latency curves, one row per
// level: the loaders and their bandwidth, the latency loop's achieved
// rate and percentiles from each operation's due time, and the knee.
func LoadedTable(s *Group) plot.Table {
	t := plot.Table{Header: []string{"point", "loaders", "loaders_BW[Gb/s]", "achieved[ops/s]", display.LatP50.Header, display.LatP99.Header,
		display.LatP99_9.Header, "knee"}}
	for _, g := range loadedGroups(s) {
		also := maps.Clone(varying(s.Points, nil)[g.key.coarse()])
		delete(also, "loaders")
		label := Describe(g.key, also)
		knee, _ := g.verdict()
		for _, p := range g.points {
			n := caveatOf(p).Samples
			fig := func(c display.Column, m metric.Metric) string {
				if v, ok := p.Figure(m.Name); ok {
					return c.Cell(v, n)
				}
				return "-"
			}
			bw, achieved, mark := "-", "-", ""
			if v := loadersGbps(p); p.Key.LoadersOf() > 0 && !math.IsNaN(v) {
				bw = display.BWAverage.Cell(v, 0)
			}
			if o := p.Results[0].OpenLoop; o != nil && o.AchievedOPS != nil {
				achieved = strconv.FormatFloat(*o.AchievedOPS, 'f', 0, 64)
			}
			if p.Key.LoadersOf() == knee {
				mark = "knee"
			}
			t.Rows = append(t.Rows, []string{display.RowName(label, pointClean(p)), strconv.Itoa(p.Key.LoadersOf()), bw, achieved,
				fig(display.LatP50, metric.LatP50), fig(display.LatP99, metric.LatP99), fig(display.LatP99_9, metric.LatP99_9), mark})
		}
	}
	t.Notes = display.Footnotes(t.Rows)
	return t
}
