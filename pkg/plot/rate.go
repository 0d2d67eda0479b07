package plot

import (
	"fmt"
	"slices"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"gonum.org/v1/plot/plotter"
)

// RateMetric says what a rate chart shows.
type RateMetric string

// The rate metrics RateVsSize draws.
const (
	Bandwidth   RateMetric = "bandwidth"    // Gb/s, drawn on a linear axis from zero
	MessageRate RateMetric = "message rate" // Mpps (millions of messages a second), log axis
)

// SizeValue is one message size's value.
type SizeValue struct {
	SizeBytes int
	Value     float64
	// Caveat marks an unclean point crossed (a rate is no percentile:
	// its samples do not matter).
	Caveat
}

// SizeSeries is one workload's values across message sizes, e.g.
// "write_bw" (RDMA) or "tcp_bw" (TCP).
type SizeSeries struct {
	Name   string
	Family Family
	Points []SizeValue
}

// RateVsSize draws bandwidth in Gb/s (linear axis from zero) or message
// rate in Mpps (log axis) against message size (log axis).
func RateVsSize(title string, metric RateMetric, series []SizeSeries, caption Caption) (*Chart, error) {
	switch metric {
	case Bandwidth:
		return sizeValueChart(title, "bandwidth (Gb/s)", false, series, caption)
	case MessageRate:
		return sizeValueChart(title, "message rate (Mpps)", true, series, caption)
	}
	return nil, fmt.Errorf("rate chart %q: metric %q: want %q or %q", title, string(metric), Bandwidth, MessageRate)
}

// CPUPerGBVsSize draws the CPU time a transfer costs, in CPU seconds per
// gigabyte (1e9 bytes) moved, against message size, both on log axes: put
// RDMA and TCP series together to show what RDMA saves the host.
func CPUPerGBVsSize(title string, series []SizeSeries, caption Caption) (*Chart, error) {
	return sizeValueChart(title, "CPU time per GB moved (CPU s/GB, lower is better)", true, series, caption)
}

func sizeValueChart(title, yLabel string, logY bool, series []SizeSeries, caption Caption) (*Chart, error) {
	names := make([]string, len(series))
	var sizes []int
	for i, s := range series {
		names[i] = s.Name
		if err := s.check(logY); err != nil {
			return nil, fmt.Errorf("chart %q: %w", title, err)
		}
		for _, pt := range s.Points {
			sizes = append(sizes, pt.SizeBytes)
		}
	}
	if err := checkNames(names); err != nil {
		return nil, fmt.Errorf("chart %q: %w", title, err)
	}
	p := newPlot("message size (bytes)")
	ch := newChart(title, p, yLabel, caption)
	xRoom := sizeAxis(p, sizes)
	var marks caveatMarks
	for i, s := range series {
		pts := slices.Clone(s.Points)
		slices.SortFunc(pts, func(a, b SizeValue) int { return a.SizeBytes - b.SizeBytes })
		xy := make(plotter.XYs, len(pts))
		for j, pt := range pts {
			xy[j] = plotter.XY{X: float64(pt.SizeBytes), Y: pt.Value}
			marks.mark(xy[j].X, xy[j].Y, 0, pt.Caveat)
		}
		l, sc, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, fmt.Errorf("chart %q: series %q: %w", title, s.Name, err)
		}
		st := styleFor(i, s.Family, 2)
		l.LineStyle, sc.GlyphStyle = st.line, st.glyph
		p.Add(l, sc)
		ch.legend = append(ch.legend, legendEntry{s.Name, seriesThumbs(st)})
	}
	ch.legend = append(ch.legend, caveatLegend(marks.add(p))...)
	var yRoom *axisRoom
	if logY {
		yRoom = logYAxis(p)
	} else {
		yRoom = linearYAxis(p, true)
	}
	ch.fit = fitRooms(xRoom, yRoom)
	return ch, nil
}

func (s SizeSeries) check(logY bool) error {
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
		what := "value at " + display.SizeTick(pt.SizeBytes) + " B"
		check := checkFinite
		if logY {
			check = checkPositive
		}
		if err := check(s.Name, what, pt.Value, ""); err != nil {
			return err
		}
	}
	return nil
}
