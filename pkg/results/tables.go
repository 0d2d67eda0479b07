package results

import (
	"path/filepath"
	"slices"
	"strconv"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
)

// LatencyTable tabulates a side's latency points as rdma-bench's table
// output does, one row per document holding the point: its merged
// figures (microseconds, 3 decimals), CPU per operation of both sides and
// status.
func LatencyTable(s *Side) plot.Table {
	t := plot.Table{Header: []string{"point", "runs", "#iterations", "t_min[usec]", "t_typical(p50)[usec]", "t_p90[usec]",
		"t_p99[usec]", "t_p99.9[usec]", "t_p99.99[usec]", "t_max[usec]", "t_avg[usec]", "t_stdev[usec]", "cpu/op[usec]", "status"}}
	names := Names(s.Points)
	for i, p := range s.Points {
		if !p.Latency {
			continue
		}
		for j, r := range p.Results {
			l := r.LatencyUS
			if l == nil {
				l = &Latency{}
			}
			t.Rows = append(t.Rows, []string{rowName(names[i], p, j), strconv.Itoa(len(r.Runs)), strconv.Itoa(r.Iterations),
				num(l.Min, 3), num(l.P50, 3), num(l.P90, 3), num(l.P99, 3), num(l.P99_9, 3), num(l.P99_99, 3), num(l.Max, 3),
				num(l.Mean, 4), num(l.Stdev, 4), num(r.CPUUSPerOp.Both(), 2), status(r)})
		}
	}
	return t
}

// BandwidthTable tabulates a side's bandwidth points as rdma-bench's
// table output does: peak and average bandwidth, message rate, CPU per GB
// of both sides and status.
func BandwidthTable(s *Side) plot.Table {
	t := plot.Table{Header: []string{"point", "runs", "#iterations", "BW peak[Gb/s]", "BW average[Gb/s]", "MsgRate[Mpps]", "cpu/GB[s]", "status"}}
	names := Names(s.Points)
	for i, p := range s.Points {
		if p.Latency {
			continue
		}
		for j, r := range p.Results {
			t.Rows = append(t.Rows, []string{rowName(names[i], p, j), strconv.Itoa(len(r.Runs)), strconv.Itoa(r.Iterations),
				num(r.BwPeakGbps, 3), num(r.BwGbps, 3), num(r.MsgRateMpps, 4), num(r.CPUSPerGB.Both(), 3), status(r)})
		}
	}
	return t
}

// rowName names a point's row, with its document when several hold it.
func rowName(name string, p *Point, j int) string {
	if len(p.Results) == 1 {
		return name
	}
	return name + " (" + filepath.Base(p.Docs[j].Path) + ")"
}

func status(r *Result) string {
	if r.Status == "" || r.Status == StatusOK {
		return StatusOK
	}
	if r.Reason != "" {
		return r.Status + ": " + r.Reason
	}
	return r.Status
}

// num formats a figure with prec decimals; "-" when null.
func num(v *float64, prec int) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', prec, 64)
}

// ComparisonTable tabulates gate rows with compare's own columns and
// cells, so the report reads as compare's table does.
func ComparisonTable(g compare.GateResult) plot.Table {
	t := plot.Table{Header: slices.Clone(compare.Columns)}
	for _, r := range g.Rows {
		t.Rows = append(t.Rows, r.Cells())
	}
	return t
}
