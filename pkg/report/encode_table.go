package report

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// tableEncoder writes perftest-like text tables: one per group of results
// sharing their parameters, one row per message size. Every header names
// its unit.
type tableEncoder struct{}

var latencyHeader = []any{
	"#bytes", "#iterations", "t_min[usec]", "t_typical(p50)[usec]",
	"t_p90[usec]", "t_p99[usec]", "t_p99.9[usec]", "t_p99.99[usec]",
	"t_max[usec]", "t_avg[usec]", "t_stdev[usec]",
	"cpu_local[%core]", "cpu_remote[%core]",
}

var bandwidthHeader = []any{
	"#bytes", "#iterations", "BW peak[Gb/s]", "BW average[Gb/s]",
	"BW average[MiB/s]", "MsgRate[Mpps]",
	"cpu_local[%core]", "cpu_remote[%core]",
	"cpu/GB_local[s]", "cpu/GB_remote[s]",
}

// Encode implements [Encoder].
func (tableEncoder) Encode(w io.Writer, doc *Document) error {
	if doc == nil {
		return errNilDocument
	}
	ew := &errWriter{w: w}
	writeTableHeader(ew, doc)
	for _, g := range groupResults(validResults(doc)) {
		ew.printf("\n%s\n", groupTitle(g))
		if err := renderGroup(ew, g); err != nil {
			return fmt.Errorf("encode table: %w", err)
		}
		writeNotes(ew, g)
	}
	if ew.err != nil {
		return fmt.Errorf("encode table: %w", ew.err)
	}
	return nil
}

func writeTableHeader(ew *errWriter, doc *Document) {
	t, h := doc.Tool, doc.Host
	commit := t.Commit
	if commit == "" {
		commit = "unknown"
	}
	ew.printf("%s %s (commit %s) on %s, kernel %s, %s, %d cores, started %s\n",
		orDash(t.Name), orDash(t.Version), commit, orDash(h.Hostname),
		orDash(h.Kernel), orDash(h.CPUModel), h.Cores, doc.StartedAt.Format(time.RFC3339))
	if d := doc.Device; d != nil {
		ew.printf("device %s port %d, %s, MTU %d, GID index %d (%s), firmware %s\n",
			orDash(d.Name), d.Port, orDash(d.LinkLayer), d.MTU, d.GIDIndex,
			orDash(d.GIDType), orDash(d.FirmwareVersion))
	}
}

func renderGroup(w io.Writer, g *group) error {
	tbl := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignRight),
		tablewriter.WithRowAlignment(tw.AlignRight),
	)
	if g.latency {
		tbl.Header(latencyHeader...)
	} else {
		tbl.Header(bandwidthHeader...)
	}
	for i, r := range g.results {
		row := bandwidthRow(r, g.sums[i])
		if g.latency {
			row = latencyRow(r, g.sums[i])
		}
		if err := tbl.Append(row); err != nil {
			return err
		}
	}
	return tbl.Render()
}

func latencyRow(r *Result, s Summary) []string {
	row := []string{strconv.Itoa(r.SizeBytes), strconv.FormatInt(iterationsShown(r, s), 10)}
	if l := s.Latency; l != nil {
		row = append(row,
			fixed(l.MinUS(), 3), fixed(l.P50US(), 3), fixed(l.P90US(), 3),
			fixed(l.P99US(), 3), fixed(l.P99_9US(), 3), fixed(l.P99_99US(), 3),
			fixed(l.MaxUS(), 3), fixed(l.MeanUS(), 4), fixed(l.StdevUS(), 4))
	} else {
		for range 9 {
			row = append(row, "-")
		}
	}
	return append(row, pctCore(s.CPULocal), pctCore(s.CPURemote))
}

func bandwidthRow(r *Result, s Summary) []string {
	row := []string{strconv.Itoa(r.SizeBytes), strconv.FormatInt(iterationsShown(r, s), 10)}
	if b := s.Bandwidth; b != nil {
		peak := "-"
		if b.PeakGbps > 0 {
			peak = fixed(b.PeakGbps, 2)
		}
		row = append(row, peak, fixed(b.BwGbps, 2), fixed(b.BwMiBps, 2), fixed(b.MsgRateMpps, 4))
	} else {
		row = append(row, "-", "-", "-", "-")
	}
	return append(row, pctCore(s.CPULocal), pctCore(s.CPURemote), perGB(s.CPULocal), perGB(s.CPURemote))
}

func pctCore(c *CPUCost) string {
	if c == nil {
		return "-"
	}
	return fixed(c.Usage.ProcessPctOfCore, 1)
}

func perGB(c *CPUCost) string {
	if c == nil || !c.HasPerGB {
		return "-"
	}
	return fixed(c.SecondsPerGB, 4)
}

// writeNotes tells, below a table, how far its figures can be trusted.
func writeNotes(ew *errWriter, g *group) {
	for i, r := range g.results {
		if r.Status != "" && r.Status != StatusOK {
			ew.printf("%s: %d bytes: %s\n", r.Status, r.SizeBytes, r.Reason)
		}
		if r.Validation != "" {
			ew.printf("validation: %d bytes: %s\n", r.SizeBytes, r.Validation)
		}
		if l := g.sums[i].Latency; l != nil && !l.Exact {
			what := "min/max/avg/stdev exact"
			if r.Moments == nil || r.Moments.Count == 0 {
				what = "min/max/avg/stdev approximate too"
			}
			ew.printf("note: %d bytes: percentiles from a histogram (3 significant digits, within 0.1%%); %s\n", r.SizeBytes, what)
		}
		if r.OutOfRange > 0 {
			ew.printf("warning: %d bytes: %d latency samples out of range (below 1 ns or above 1 h) are in no statistic\n", r.SizeBytes, r.OutOfRange)
		}
	}
}

// errWriter keeps the first write error so that formatted output can be
// written without checking each call.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) {
	_, _ = fmt.Fprintf(e, format, args...)
}
