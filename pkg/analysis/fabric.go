package analysis

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/infile"
	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
	"github.com/rdma-bench/rdma-bench/pkg/fabric/heatmap"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

// A saved fabric document's offline view: plot draws its heat maps and
// report writes its matrices, findings and heat maps, with the code rank
// 0 draws and prints them with (heatmap.Charts, fabric.Matrix,
// fabric.WriteFindings).

// LoadFabric reads the fabric document that paths name, when they name
// one regular file whose kind is "fabric"; nil, and no error, when they
// name no fabric document (the documents of run and suite, read as
// ever). A fabric document beside others, or two, is bad input: its view
// is of one sweep. A file is peeked at for its kind before it is read:
// a stream (standard input) is left to the run documents' reader.
func LoadFabric(ctx context.Context, paths []string) (*fabric.Document, error) {
	return loadAlone(ctx, paths, document.KindFabric, fabric.Parse)
}

// loadAlone reads the document of kind that paths name, parsed by parse:
// nil, and no error, when they name none; bad input when they name it
// beside others, or name two.
func loadAlone[D any](ctx context.Context, paths []string, kind string, parse func([]byte) (*D, error)) (*D, error) {
	var found []string
	for _, p := range paths {
		if fileKind(p) == kind {
			found = append(found, p)
		}
	}
	switch {
	case len(found) == 0:
		return nil, nil
	case len(paths) > 1:
		return nil, badInput("%s: a %s document is viewed alone: name it without other documents", strings.Join(found, ", "), kind)
	}
	b, err := infile.Read(ctx, found[0])
	if err != nil {
		return nil, loadError(ctx, found[0], err)
	}
	doc, err := parse(b)
	if err != nil {
		return nil, badInput("%s: %v", found[0], err)
	}
	return doc, nil
}

// fileKind is the top-level "kind" of the JSON document in path, when it
// is a regular file that has one; "" otherwise. The kind is read as a
// token of the JSON stream, the values before it skipped: a fabric
// document says it second, a gate document first.
func fileKind(path string) string {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(io.LimitReader(f, infile.MaxBytes)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ""
		}
		if key == "kind" {
			var kind string
			if dec.Decode(&kind) != nil {
				return ""
			}
			return kind
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return ""
		}
	}
	return ""
}

// FabricCharts are doc's heat maps, as rank 0's --plot draws them.
func FabricCharts(doc *fabric.Document, notes io.Writer) ([]results.NamedChart, error) {
	charts := heatmap.Charts(doc, notes)
	if len(charts) == 0 {
		return nil, badInput("no heat map to draw: no pair of the fabric document has a figure")
	}
	return charts, nil
}

// FabricReport is doc's HTML report: its members, then a section a
// metric with the matrix rank 0 prints (its marks and footnotes) and its
// heat map, a halves or incast sweep's round totals, then the findings.
func FabricReport(ctx context.Context, title string, doc *fabric.Document, notes io.Writer) (plot.Report, error) {
	if title == "" || title == DefaultReportTitle {
		title = fmt.Sprintf("rdma-bench fabric: %d ranks, pattern %s", doc.World.Size, doc.Schedule.Pattern)
	}
	r := plot.Report{Title: title, Meta: [][2]string{
		{"tool", strings.TrimSpace(doc.Tool.Name + " " + doc.Tool.Version)},
		{"started", doc.StartedAt.UTC().Format(time.RFC3339)},
		{"duration", doc.FinishedAt.Sub(doc.StartedAt).Round(100 * time.Millisecond).String()},
		{"schedule", doc.Schedule.Text()},
		{"workloads", strings.Join(doc.Workloads, ", ")},
		{"status", doc.Status},
	}}
	if doc.Partial() {
		r.Meta = append(r.Meta, [2]string{"partial", fabric.PartialReason(doc)})
	}
	members := plot.Table{Header: []string{"rank", "host", "device", "port", "MTU", "address"}}
	for _, m := range doc.Members {
		members.Rows = append(members.Rows, []string{strconv.Itoa(m.Rank), m.Hostname, orDash(m.Device), strconv.Itoa(m.Port), strconv.Itoa(m.MTUBytes), m.Addr})
	}
	r.Sections = append(r.Sections, plot.Section{Title: "Ranks", Tables: []plot.Table{members}})
	charts := map[string]*plot.Chart{}
	for _, c := range heatmap.Charts(doc, notes) {
		charts[c.Name] = c.Chart
	}
	for _, metric := range doc.Metrics() {
		if ctx.Err() != nil {
			return plot.Report{}, context.Cause(ctx)
		}
		what, unit := fabric.DescribeMetric(metric)
		header, rows := doc.Matrix(metric).Table()
		t := plot.Table{Header: header, Rows: rows, Notes: footnotes(rows)}
		sec := plot.Section{Title: fmt.Sprintf("%s [%s]", what, unit), Notes: []string{metric + ": rows measure (src), columns serve (dst)"}, Tables: []plot.Table{t}}
		if ch := charts["fabric-"+strings.ReplaceAll(metric, ".", "-")]; ch != nil {
			sec.Charts = []*plot.Chart{ch}
		}
		r.Sections = append(r.Sections, sec)
	}
	totals, err := fabric.RoundTotalLines(doc)
	if err != nil {
		return plot.Report{}, fmt.Errorf("fabric round totals: %w", err)
	}
	if len(totals) > 0 {
		r.Sections = append(r.Sections, plot.Section{Title: "Round totals", Notes: totals})
	}
	var b bytes.Buffer
	if err := fabric.WriteFindings(&b, doc, fabric.FindingsLimit); err != nil {
		return plot.Report{}, fmt.Errorf("fabric findings: %w", err)
	}
	r.Sections = append(r.Sections, plot.Section{Title: "Findings", Notes: strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")})
	return r, nil
}

// footnotes explain the marks of a matrix's cells (its rows without the
// row names).
func footnotes(rows [][]string) []string {
	cells := make([][]string, len(rows))
	for i, row := range rows {
		cells[i] = row[1:]
	}
	return display.Footnotes(cells)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
