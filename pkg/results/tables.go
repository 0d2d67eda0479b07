package results

import (
	"path/filepath"
	"slices"
	"strconv"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
)

// LatencyTable tabulates a side's latency points as rdma-bench's table
// output does, one row per document holding the point: its merged
// figures (microseconds, 3 decimals), CPU per operation of both sides and
// status, with the table output's marks and their footnotes.
func LatencyTable(s *Group) plot.Table {
	t := plot.Table{Header: slices.Concat([]string{"point", "runs", "#iterations", "samples"}, display.Headers(display.LatencyColumns...),
		[]string{display.CPUOp.Header, "status"})}
	names := Names(s.Points)
	var ticks []string
	for i, p := range s.Points {
		if !p.Latency {
			continue
		}
		for j, r := range p.Results {
			if len(r.Runs) == 0 { // every run left out (--clean-only)
				continue
			}
			l := r.LatencyUS
			if l == nil {
				l = &document.Latency{}
			}
			n := r.Samples
			if l.AtTick() {
				ticks = append(ticks, "warning: "+rowName(names[i], p, j)+": "+display.TickWarning)
			}
			row := []string{display.RowName(rowName(names[i], p, j), r.Clean), strconv.Itoa(len(r.Runs)),
				display.Count(r.Iterations, r.Ops), display.Samples(n)}
			for k, v := range []*float64{l.Min, l.P50, l.P90, l.P99, l.P99_9, l.P99_99, l.Max, l.Mean, l.Stdev} {
				row = append(row, cell(display.LatencyColumns[k], v, n))
			}
			t.Rows = append(t.Rows, append(row, cell(display.CPUOp, r.CPUUSPerOp.Both(), 0), status(r)))
		}
	}
	t.Notes = append(display.Footnotes(t.Rows), ticks...)
	return t
}

// BandwidthTable tabulates a side's bandwidth points as rdma-bench's
// table output does: peak and average bandwidth, message rate, CPU per GB
// of both sides and status.
func BandwidthTable(s *Group) plot.Table {
	t := plot.Table{Header: slices.Concat([]string{"point", "runs", "#iterations"},
		display.Headers(display.BWPeak, display.BWAverage, display.MsgRate, display.CPUGB), []string{"status"})}
	names := Names(s.Points)
	for i, p := range s.Points {
		if p.Latency {
			continue
		}
		for j, r := range p.Results {
			if len(r.Runs) == 0 { // every run left out (--clean-only)
				continue
			}
			t.Rows = append(t.Rows, []string{display.RowName(rowName(names[i], p, j), r.Clean), strconv.Itoa(len(r.Runs)),
				display.Count(r.Iterations, r.Ops),
				cell(display.BWPeak, r.BwPeakGbps, 0), cell(display.BWAverage, r.BwGbps, 0), cell(display.MsgRate, r.MsgRateMpps, 0),
				cell(display.CPUGB, r.CPUSPerGB.Both(), 0), status(r)})
		}
	}
	t.Notes = display.Footnotes(t.Rows)
	return t
}

// rowName names a point's row, with its document when several hold it,
// and its run when the document's result stands as its clean runs
// (--clean-only: [cleanResults]).
func rowName(name string, p *Point, j int) string {
	if len(p.Results) == 1 {
		return name
	}
	doc := filepath.Base(p.Docs[j].Path)
	r := p.Results[j]
	for k, o := range p.Results {
		if k != j && p.Docs[k] == p.Docs[j] && o.Index == r.Index && len(r.Runs) == 1 {
			doc += " run " + strconv.Itoa(r.Runs[0].Run)
			break
		}
	}
	return name + " (" + doc + ")"
}

// status is a row's status, what its counters said when they moved, and
// the expectations (--expect) it failed.
func status(r *document.Result) string {
	out := document.StatusOK
	if r.Status != "" && r.Status != document.StatusOK {
		out = r.Status
		if r.Reason != "" {
			out += ": " + r.Reason
		}
	}
	if display.Unclean(r.Clean) && r.Counters != nil && r.Counters.Verdict != "" {
		out += "; counters: " + r.Counters.Verdict
	}
	for _, f := range document.FailedExpectations(r.Expectations) {
		out += "; expect: " + f
	}
	return out
}

// cell writes v, a figure from n samples, in column c; "-" when null.
func cell(c display.Column, v *float64, n int64) string {
	if v == nil {
		return "-"
	}
	return c.Cell(*v, n)
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
