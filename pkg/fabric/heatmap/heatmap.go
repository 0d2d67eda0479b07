// Package heatmap draws a fabric document's matrices as heat maps: one
// per metric, the source ranks down, the destination ranks across.
package heatmap

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

// CheckDir refuses a --plot directory the heat maps could not be written
// into, before anything is measured, as run's --plot does
// (outfile.ProbeDir); "" is no --plot.
func CheckDir(dir string) error {
	if dir == "" {
		return nil
	}
	if err := outfile.ProbeDir(dir); err != nil {
		return fmt.Errorf("--plot %s: %w", dir, err)
	}
	return nil
}

// Charts are the heat maps of doc, one per metric (each workload's
// headline figures), named fabric-WORKLOAD-METRIC. A metric no pair has a
// figure for is left out, with a note to notes. A cell carries the marks
// of the matrices' table (display.Marked), an unclean one is outlined too,
// and the caption ends with the table's footnotes (display.Footnotes).
func Charts(doc *fabric.Document, notes io.Writer) []results.NamedChart {
	caption := Caption(doc)
	var charts []results.NamedChart
	for _, metric := range doc.Metrics() {
		what, unit := fabric.DescribeMetric(metric)
		g := Grid(doc.Matrix(metric))
		g.Unit = unit
		c := caption
		c.Notes = display.Footnotes(g.Marks)
		ch, err := plot.Matrix(fmt.Sprintf("%s between %d ranks", what, doc.World.Size), g, c)
		if err != nil {
			fmt.Fprintf(notes, "rdma-bench fabric: note: no heat map of %s: %v\n", metric, err)
			continue
		}
		charts = append(charts, results.NamedChart{Name: "fabric-" + strings.ReplaceAll(metric, ".", "-"), Chart: ch})
	}
	return charts
}

// Grid is m as a plot grid: rows measure, columns serve; NaN where a pair
// has no figure (the diagonal, failed pairs, pairs not scheduled). A
// cell's marks are its caveats' (display.Marked: "*", " !"), and a cell
// whose pair's run was not clean is outlined.
func Grid(m *fabric.Matrix) plot.Grid {
	n := m.Size()
	g := plot.Grid{RowAxis: "source rank (measures)", ColAxis: "destination rank (serves)",
		Rows: make([]string, n), Cols: make([]string, n), Values: make([][]float64, n),
		Marks: make([][]string, n), Outlined: make([][]bool, n), OutlinedLabel: display.UncleanLegend}
	for i, mb := range m.Members {
		g.Rows[i] = fmt.Sprintf("%d %s", mb.Rank, mb.Hostname)
		g.Cols[i] = strconv.Itoa(mb.Rank)
		g.Values[i], g.Marks[i], g.Outlined[i] = make([]float64, n), make([]string, n), make([]bool, n)
		for j := range n {
			var ok bool
			if g.Values[i][j], ok = m.At(i, j); !ok { // NaN unless measured
				continue
			}
			c := m.Caveat(i, j)
			g.Marks[i][j] = display.Marked("", c&fabric.CaveatThin != 0, c&fabric.CaveatUnclean != 0)
			g.Outlined[i][j] = c&fabric.CaveatUnclean != 0
		}
	}
	return g
}

// Caption names the run on every heat map: devices, hosts, date, tool,
// pattern.
func Caption(doc *fabric.Document) plot.Caption {
	var devs, hosts []string
	for _, m := range doc.Members {
		if m.Device != "" {
			devs = append(devs, m.Device)
		}
		hosts = append(hosts, m.Hostname)
	}
	slices.Sort(devs)
	slices.Sort(hosts)
	c := plot.Caption{
		Device: listOrCount(slices.Compact(devs), "devices"),
		Host:   listOrCount(slices.Compact(hosts), "hosts"),
		Date:   doc.StartedAt.UTC().Format(time.RFC3339),
		Tool:   "rdma-bench " + doc.Tool.Version,
		Extra:  [][2]string{{"pattern", doc.Schedule.Pattern}, {"ranks", strconv.Itoa(doc.World.Size)}},
	}
	if doc.Partial() {
		c.Extra = append(c.Extra, [2]string{"status", "PARTIAL: " + fabric.PartialReason(doc)})
	}
	return c
}

// listOrCount is "a, b, c", or "12 hosts" beyond three.
func listOrCount(names []string, what string) string {
	if len(names) > 3 {
		return fmt.Sprintf("%d %s", len(names), what)
	}
	return strings.Join(names, ", ")
}
