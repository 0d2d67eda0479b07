package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// tableEncoder writes perftest-like text tables: one per group of results
// sharing their parameters, one row per message size. Every header names
// its unit.
type tableEncoder struct{}

var latencyHeader = anys(slices.Concat([]string{"#bytes", "#iterations"}, display.Headers(display.LatencyColumns...),
	[]string{"cpu_local[%core]", "cpu_remote[%core]"}))

var bandwidthHeader = anys(slices.Concat([]string{"#bytes", "#iterations"},
	display.Headers(display.BWPeak, display.BWAverage, display.BWMiB, display.MsgRate),
	[]string{"cpu_local[%core]", "cpu_remote[%core]", "cpu/GB_local[s]", "cpu/GB_remote[s]"}))

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// Encode implements [Encoder].
func (tableEncoder) Encode(w io.Writer, doc *Document) error {
	if doc == nil {
		return errNilDocument
	}
	ew := &display.ErrWriter{W: w}
	writeTableHeader(ew, doc)
	for _, g := range groupResults(validResults(doc)) {
		ew.Printf("\n%s\n", groupTitle(g))
		if err := renderGroup(ew, g); err != nil {
			return fmt.Errorf("encode table: %w", err)
		}
		writeNotes(ew, g)
	}
	if sum := ExpectationSummary(validResults(doc)); sum != "" {
		ew.Printf("\n%s\n", sum)
	}
	if ew.Err != nil {
		return fmt.Errorf("encode table: %w", ew.Err)
	}
	return nil
}

func writeTableHeader(ew *display.ErrWriter, doc *Document) {
	t, h := doc.Tool, doc.Host
	commit := t.Commit
	if commit == "" {
		commit = "unknown"
	}
	ew.Printf("%s %s (commit %s) on %s, kernel %s, %s, %d cores, rdma-core %s, started %s\n",
		orDash(t.Name), orDash(t.Version), commit, orDash(h.Hostname),
		orDash(h.Kernel), orDash(h.CPUModel), h.Cores, orDash(h.RDMACore), doc.StartedAt.Format(time.RFC3339))
	if d := doc.Device; d != nil {
		ew.Printf("device %s port %d, %s, MTU %d, GID index %d (%s), firmware %s%s\n",
			orDash(d.Name), d.Port, orDash(d.LinkLayer), d.MTU, d.GIDIndex,
			orDash(d.GIDType), orDash(d.FirmwareVersion), deviceSysfs(d))
		if d.Chosen != "" {
			ew.Printf("device chosen: %s\n", d.Chosen)
		}
		if d.Provider != "" {
			ew.Printf("provider: %s\n", d.Provider)
		}
	}
	if p := h.Placement; p != nil {
		ew.Printf("NUMA placement: %s\n", PlacementText(p))
	}
}

// deviceSysfs is what the header adds of sysfs's: the link rate and the
// device's NUMA node, where known.
func deviceSysfs(d *Device) string {
	out := ""
	if d.LinkRate != "" {
		out += ", link " + d.LinkRate
	}
	if n := d.NUMANode; n != nil && *n >= 0 {
		out += fmt.Sprintf(", NUMA node %d", *n)
	}
	return out
}

// PlacementText says where a side's threads and buffers went: "node 1,
// CPUs 8-15 (mlx5_0's NUMA node (sysfs))", or why nowhere.
func PlacementText(p *Placement) string {
	if p.Node < 0 {
		return p.Why
	}
	return fmt.Sprintf("node %d, CPUs %s (%s)", p.Node, p.CPUs, p.Why)
}

func renderGroup(w io.Writer, g *group) error {
	header := bandwidthHeader
	if g.latency {
		header = latencyHeader
	}
	if g.rated {
		header = rated(header, g.latency)
	}
	if g.loaded {
		header = slices.Concat(header[:1], loadedHeader, header[1:])
	}
	tbl := display.NewTable(w, true, header...)
	var rows [][]string
	for i, r := range g.results {
		row := bandwidthRow(r, g.sums[i])
		if g.latency {
			row = latencyRow(r, g.sums[i])
		}
		if g.rated {
			row = rateCells(row, r, g.latency)
		}
		if g.loaded {
			row = slices.Concat(row[:1], loadedCells(r), row[1:])
		}
		if err := tbl.Append(row); err != nil {
			return err
		}
		rows = append(rows, row)
	}
	if err := tbl.Render(); err != nil {
		return err
	}
	for _, n := range display.Footnotes(rows) {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return err
		}
	}
	return nil
}

// rated is a header with the rate columns after #bytes: the offered rate,
// and for latency the achieved one.
func rated(h []any, latency bool) []any {
	cols := []any{"offered[ops/s]"}
	if latency {
		cols = append(cols, "achieved[ops/s]")
	}
	return slices.Concat(h[:1], cols, h[1:])
}

// rateCells inserts r's rate cells after its size: "closed" for a closed
// loop (its achieved rate is then its own pace), "-" for an unlimited
// stream.
func rateCells(row []string, r *Result, latency bool) []string {
	cells := []string{"-"}
	if latency {
		cells[0] = "closed"
	}
	if r.Rate > 0 {
		cells[0] = strconv.Itoa(r.Rate)
	}
	if latency {
		got := "-"
		if r.ElapsedNS > 0 {
			got = fixed(float64(r.Ops)/float64(r.ElapsedNS)*1e9, 0)
		}
		cells = append(cells, got)
	}
	return slices.Concat(row[:1], cells, row[1:])
}

// rowName names a row in the notes: its size, and its rate in a rated
// table.
func rowName(g *group, r *Result) string {
	if g.loaded {
		return fmt.Sprintf("%d bytes at %d ops/s with %s", r.SizeBytes, r.Rate, display.Loaders(r.Params.Loaders))
	}
	if g.rated && r.Rate > 0 {
		return fmt.Sprintf("%d bytes at %d ops/s", r.SizeBytes, r.Rate)
	}
	return fmt.Sprintf("%d bytes", r.SizeBytes)
}

func latencyRow(r *Result, s Summary) []string {
	row := []string{display.RowName(strconv.Itoa(r.SizeBytes), cleanOf(r)), strconv.FormatInt(iterationsShown(r, s), 10)}
	if l := s.Latency; l != nil {
		vals := []float64{l.MinUS(), l.P50US(), l.P90US(), l.P99US(), l.P99_9US(), l.P99_99US(), l.MaxUS(), l.MeanUS(), l.StdevUS()}
		for i, c := range display.LatencyColumns {
			row = append(row, c.Cell(vals[i], l.Count))
		}
	} else {
		for range display.LatencyColumns {
			row = append(row, "-")
		}
	}
	return append(row, pctCore(s.CPULocal), pctCore(s.CPURemote))
}

func bandwidthRow(r *Result, s Summary) []string {
	row := []string{display.RowName(strconv.Itoa(r.SizeBytes), cleanOf(r)), strconv.FormatInt(iterationsShown(r, s), 10)}
	if b := s.Bandwidth; b != nil {
		peak := "-"
		if b.PeakGbps > 0 {
			peak = display.BWPeak.Cell(b.PeakGbps, 0)
		}
		row = append(row, peak, display.BWAverage.Cell(b.BwGbps, 0), display.BWMiB.Cell(b.BwMiBps, 0), display.MsgRate.Cell(b.MsgRateMpps, 0))
	} else {
		row = append(row, "-", "-", "-", "-")
	}
	return append(row, pctCore(s.CPULocal), pctCore(s.CPURemote), perGB(s.CPULocal), perGB(s.CPURemote))
}

func pctCore(c *CPUCost) string {
	if c == nil {
		return "-"
	}
	return display.CPUCore.Cell(c.Usage.ProcessPctOfCore, 0)
}

func perGB(c *CPUCost) string {
	if c == nil || !c.HasPerGB {
		return "-"
	}
	return display.CPUGB.Cell(c.SecondsPerGB, 0)
}

// writeNotes tells, below a table, how far its figures can be trusted,
// and what an open loop measured beside its headline: every note of
// every row ([rowNotes]), then the load curves.
func writeNotes(ew *display.ErrWriter, g *group) {
	for i, r := range g.results {
		for _, n := range rowNotes(rowName(g, r), r, g.sums[i]) {
			ew.Printf("%s\n", n.text)
		}
	}
	for _, c := range LoadCurves(g.results) {
		ew.Printf("load: %s %d bytes: %s\n", c.Workload, c.SizeBytes, c.Summary())
	}
	for _, c := range LoadedCurves(g.results) {
		ew.Printf("loaded: %s %d bytes at %d ops/s: %s\n", c.Workload, c.SizeBytes, c.RateOPS, c.Summary())
	}
}

// openFigures is an open loop's service time and lag in a few figures.
func openFigures(o *OpenLoop) string {
	out := ""
	if s := o.Service.Stats(); s != nil {
		out += fmt.Sprintf("service p50 %s p99 %s us", display.LatP50.Cell(s.P50US(), 0), display.LatP99.Cell(s.P99US(), s.Count))
	}
	if l := o.Lag.Stats(); l != nil {
		out += fmt.Sprintf("; schedule lag p50 %s p99 %s max %s us", display.LatP50.Cell(l.P50US(), 0), display.LatP99.Cell(l.P99US(), l.Count),
			display.LatMax.Cell(l.MaxUS(), 0))
	}
	if o.Behind > 0 {
		out += fmt.Sprintf("; %d operations due were never issued", o.Behind)
	}
	return out
}

// loadedHeader are a loaded table's columns after #bytes: the loader
// QPs, and the bandwidth they streamed together.
var loadedHeader = []any{"loaders", "loaders_BW[Gb/s]"}

// loadedCells are r's loader cells: its count, and "-" for the bandwidth
// of none.
func loadedCells(r *Result) []string {
	bw := "-"
	if r.Loaded != nil {
		bw = display.BWAverage.Cell(r.Loaded.Gbps(r.SizeBytes), 0)
	}
	return []string{strconv.Itoa(r.Params.Loaders), bw}
}
