package plot

import (
	"fmt"
	"math"
	"slices"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// LatencyPoint is one message size's latency percentiles in microseconds.
// P99US and P99_9US may be NaN when not measured; that tail line then
// joins the neighbouring points.
type LatencyPoint struct {
	SizeBytes int
	P50US     float64
	P99US     float64
	P99_9US   float64
	// Caveat marks a percentile from too few samples hollow and an
	// unclean point crossed.
	Caveat
}

// LatencySeries is one workload's latency across message sizes, e.g.
// "write_lat" (RDMA) or "tcp_lat" (TCP).
type LatencySeries struct {
	Name   string
	Family Family
	Points []LatencyPoint
}

// LatencyVsSize draws latency against message size on log-log axes: each
// series' median (p50) as a thick line with markers, its p99 as a thin
// line with small marks and its p99.9 as a thin faint one, of the same
// colour, dash and mark shape.
func LatencyVsSize(title string, series []LatencySeries, caption Caption) (*Chart, error) {
	names := make([]string, len(series))
	var sizes []int
	for i, s := range series {
		names[i] = s.Name
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("latency chart %q: %w", title, err)
		}
		for _, pt := range s.Points {
			sizes = append(sizes, pt.SizeBytes)
		}
	}
	if err := checkNames(names); err != nil {
		return nil, fmt.Errorf("latency chart %q: %w", title, err)
	}
	p := newPlot("message size (bytes)")
	ch := newChart(title, p, "latency (µs)", caption)
	xRoom := sizeAxis(p, sizes)
	var medians []plot.Plotter
	var tails [2]bool
	var marks caveatMarks
	for i, s := range series {
		pts := slices.Clone(s.Points)
		slices.SortFunc(pts, func(a, b LatencyPoint) int { return a.SizeBytes - b.SizeBytes })
		st := styleFor(i, s.Family, 2)
		if err := addTails(p, st, latencyXYs(pts, func(p LatencyPoint) float64 { return p.P99US }),
			latencyXYs(pts, func(p LatencyPoint) float64 { return p.P99_9US }), &tails); err != nil {
			return nil, fmt.Errorf("latency chart %q: series %q: %w", title, s.Name, err)
		}
		l, sc, err := plotter.NewLinePoints(latencyXYs(pts, func(p LatencyPoint) float64 { return p.P50US }))
		if err != nil {
			return nil, fmt.Errorf("latency chart %q: series %q: %w", title, s.Name, err)
		}
		l.LineStyle, sc.GlyphStyle = st.line, st.glyph
		medians = append(medians, l, sc)
		ch.legend = append(ch.legend, legendEntry{s.Name, seriesThumbs(st)})
		for _, pt := range pts {
			markPercentiles(&marks, float64(pt.SizeBytes), pt.Caveat, pt.P50US, pt.P99US, pt.P99_9US)
		}
	}
	p.Add(medians...)
	ch.legend = append(ch.legend, percentileLegend(tails)...)
	ch.legend = append(ch.legend, marks.add(p)...)
	yRoom := logYAxis(p)
	ch.fit = fitRooms(xRoom, yRoom)
	return ch, nil
}

func (s LatencySeries) check() error {
	if err := s.Family.check(); err != nil {
		return fmt.Errorf("series %q: %w", s.Name, err)
	}
	if len(s.Points) == 0 {
		return fmt.Errorf("series %q: no points: want at least one", s.Name)
	}
	for _, pt := range s.Points {
		if err := checkSize(s.Name, pt.SizeBytes); err != nil {
			return err
		}
		at := " at " + display.SizeTick(pt.SizeBytes) + " B"
		if err := checkPositive(s.Name, "p50 latency"+at, pt.P50US, " µs"); err != nil {
			return err
		}
		for i, v := range []float64{pt.P99US, pt.P99_9US} {
			if !math.IsNaN(v) {
				if err := checkPositive(s.Name, []string{"p99", "p99.9"}[i]+" latency"+at, v, " µs"); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// latencyXYs returns the (size, get(point)) pairs whose value is not NaN.
func latencyXYs(pts []LatencyPoint, get func(LatencyPoint) float64) plotter.XYs {
	var xy plotter.XYs
	for _, p := range pts {
		if v := get(p); !math.IsNaN(v) {
			xy = append(xy, plotter.XY{X: float64(p.SizeBytes), Y: v})
		}
	}
	return xy
}

// markPercentiles records the caveats of a point's p50, p99 and p99.9 at
// x (a NaN percentile is not drawn, so not marked).
func markPercentiles(m *caveatMarks, x float64, c Caveat, p50, p99, p99_9 float64) {
	for i, v := range []float64{p50, p99, p99_9} {
		if !math.IsNaN(v) {
			m.mark(x, v, []float64{50, 99, 99.9}[i], c)
		}
	}
}
