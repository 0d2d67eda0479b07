//go:build cgo

package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/fabric"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

// plotFabric draws a heat map per metric of the document (each workload's
// headline figures) into dir as fabric-WORKLOAD-METRIC.svg and .png. A
// metric no pair has a figure for is left out, with a note.
func plotFabric(dir string, doc *fabric.Document) error {
	caption := fabricCaption(doc)
	var charts []results.NamedChart
	for _, metric := range doc.Metrics() {
		what, unit := describeMetric(metric)
		g := matrixGrid(doc.Matrix(metric))
		g.Unit = unit
		ch, err := plot.Matrix(fmt.Sprintf("%s between %d ranks", what, doc.World.Size), g, caption)
		if err != nil {
			fmt.Fprintf(os.Stderr, "rdma-bench fabric: note: no heat map of %s: %v\n", metric, err)
			continue
		}
		charts = append(charts, results.NamedChart{Name: "fabric-" + strings.ReplaceAll(metric, ".", "-"), Chart: ch})
	}
	written, err := writeCharts(dir, charts)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %d heat maps (SVG and PNG) into %s\n", len(written)/2, dir)
	return nil
}

// matrixGrid is m as a plot grid: rows measure, columns serve; NaN where
// a pair has no figure (the diagonal, failed pairs, pairs not scheduled).
func matrixGrid(m *fabric.Matrix) plot.Grid {
	n := m.Size()
	g := plot.Grid{RowAxis: "source rank (measures)", ColAxis: "destination rank (serves)",
		Rows: make([]string, n), Cols: make([]string, n), Values: make([][]float64, n)}
	for i, mb := range m.Members {
		g.Rows[i] = fmt.Sprintf("%d %s", mb.Rank, mb.Hostname)
		g.Cols[i] = strconv.Itoa(mb.Rank)
		g.Values[i] = make([]float64, n)
		for j := range n {
			g.Values[i][j], _ = m.At(i, j) // NaN unless measured
		}
	}
	return g
}

// fabricCaption names the run on every heat map: devices, hosts, date,
// tool, pattern.
func fabricCaption(doc *fabric.Document) plot.Caption {
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
		c.Extra = append(c.Extra, [2]string{"status", "PARTIAL: " + partialReason(doc)})
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
