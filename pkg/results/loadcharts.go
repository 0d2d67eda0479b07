package results

import (
	"maps"
	"math"
	"strconv"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/metric"

	"github.com/rdma-bench/rdma-bench/pkg/plot"
)

// LoadChart is the input of one latency-against-load chart: a latency
// point measured at several offered rates, a curve per side.
type LoadChart struct {
	// Name is a file name without extension, such as
	// "load_write_lat_RC_poll_64B".
	Name   string
	Title  string
	Curves []plot.LoadCurve
	// Summaries are the documents' verdicts on the curves, as they
	// recorded them (load_curves' summary), each side's label first when
	// there are several sides.
	Summaries []string
}

// LoadCharts returns a latency-against-load chart for every latency point
// the sides measured at two offered rates or more, in the order found:
// p50, p99 and p99.9 at each rate, the closed-loop p50 when the point was
// run closed loop too, and the knee the documents recorded.
func LoadCharts(sides []*Group) []LoadChart {
	var out []LoadChart
	idx := map[Key]int{}
	for _, s := range sides {
		for _, g := range loadGroups(s) {
			label := g.label(sides)
			i, ok := idx[g.key]
			if !ok {
				i = len(out)
				idx[g.key] = i
				out = append(out, LoadChart{Name: "load_" + FileName(label), Title: label + ": latency against offered load"})
			}
			name := label
			if len(sides) > 1 {
				name = sideName(s)
			}
			c := plot.LoadCurve{Name: name, Family: familyOf(g.open[0]), ClosedP50US: math.NaN()}
			for _, p := range g.open {
				p50, ok := p.Figure(metric.LatP50.Name)
				if !ok {
					continue
				}
				c.Points = append(c.Points, plot.LoadPoint{OfferedOPS: float64(p.Key.RateOPS()), P50US: p50,
					P99US: figureOrNaN(p, metric.LatP99.Name), P99_9US: figureOrNaN(p, metric.LatP99_9.Name), Caveat: caveatOf(p)})
			}
			if len(c.Points) == 0 {
				continue
			}
			if g.closed != nil {
				c.ClosedP50US = figureOrNaN(g.closed, metric.LatP50.Name)
			}
			knee, sums := g.verdict()
			c.KneeOPS = float64(knee)
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

// label names the group's point without its rate, as [Describe] does
// with the parameters that vary among the sides' points.
func (g *loadGroup) label(sides []*Group) string {
	var all []*Point
	for _, s := range sides {
		all = append(all, s.Points...)
	}
	also := maps.Clone(varying(all, nil)[g.key.coarse()])
	delete(also, "rate")
	return Describe(g.key, also)
}

// LoadTable tabulates a side's load curves, one row per offered rate and
// one for the closed loop: the rate offered and achieved, the latency
// percentiles from each operation's due time, the service time's and the
// schedule lag's p99, and the knee.
func LoadTable(s *Group) plot.Table {
	t := plot.Table{Header: []string{"point", "offered[ops/s]", "achieved[ops/s]", display.LatP50.Header, display.LatP99.Header,
		display.LatP99_9.Header, "service p99[usec]", "lag p99[usec]", "knee"}}
	for _, g := range loadGroups(s) {
		label := g.label([]*Group{s})
		knee, _ := g.verdict()
		if g.closed != nil {
			t.Rows = append(t.Rows, loadRow(label, "closed loop", g.closed, ""))
		}
		for _, p := range g.open {
			mark := ""
			if knee != 0 && p.Key.RateOPS() == knee {
				mark = "knee"
			}
			t.Rows = append(t.Rows, loadRow(label, strconv.Itoa(p.Key.RateOPS()), p, mark))
		}
	}
	t.Notes = display.Footnotes(t.Rows)
	return t
}

// loadRow is one row of LoadTable; a point held by several documents
// shows the first one's open-loop figures.
func loadRow(label, offered string, p *Point, knee string) []string {
	n := caveatOf(p).Samples
	fig := func(c display.Column, m metric.Metric) string {
		if v, ok := p.Figure(m.Name); ok {
			return c.Cell(v, n)
		}
		return "-"
	}
	achieved, service, lag := "-", "-", "-"
	if o := p.Results[0].OpenLoop; o != nil {
		if o.AchievedOPS != nil {
			achieved = strconv.FormatFloat(*o.AchievedOPS, 'f', 0, 64)
		}
		if o.ServiceUS != nil {
			service = cell(display.LatP99, o.ServiceUS.P99, n)
		}
		if o.LagUS != nil {
			lag = cell(display.LatP99, o.LagUS.P99, n)
		}
	}
	return []string{display.RowName(label, pointClean(p)), offered, achieved, fig(display.LatP50, metric.LatP50), fig(display.LatP99, metric.LatP99),
		fig(display.LatP99_9, metric.LatP99_9), service, lag, knee}
}

// pointClean is what a row's mark says of a point: not clean when a run of
// it was not.
func pointClean(p *Point) *bool {
	c := p.Unclean == 0
	return &c
}
