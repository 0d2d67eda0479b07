package analysis

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
	"github.com/rdma-bench/rdma-bench/pkg/gate"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

// A saved gate document's offline view: report writes its table, notes
// and summary as the gate printed them, with its whiskers; plot draws
// the whiskers.

// LoadGate reads the gate document that paths name, when they name one
// regular file whose kind is "gate"; nil, and no error, when they name
// none. A gate document beside others, or two, is bad input: its view is
// of one gate.
func LoadGate(ctx context.Context, paths []string) (*gate.Document, error) {
	return loadAlone(ctx, paths, document.KindGate, gate.Parse)
}

// LoadOther reads the fabric or gate document that paths name alone
// ([LoadFabric], [LoadGate]): both nil, and no error, when they name the
// documents of run and suite.
func LoadOther(ctx context.Context, paths []string) (*fabric.Document, *gate.Document, error) {
	fab, err := LoadFabric(ctx, paths)
	if err != nil || fab != nil {
		return fab, nil, err
	}
	gd, err := LoadGate(ctx, paths)
	return nil, gd, err
}

// GateCharts is the gate's one chart: each decided or undecided row's
// change with its interval against its threshold.
func GateCharts(doc *gate.Document) ([]results.NamedChart, error) {
	ws := gate.Whiskers(doc)
	if len(ws) == 0 {
		return nil, badInput("no chart to draw: no row of the gate document was looked at")
	}
	ch, err := plot.ComparisonWhiskers("gate: candidate against base", ws, gateCaption(doc))
	if err != nil {
		return nil, fmt.Errorf("gate chart: %w", err)
	}
	return []results.NamedChart{{Name: "gate", Chart: ch}}, nil
}

// GateReport is doc's HTML report: its sides and settings, then its table
// with the notes and summary under it, and its chart.
func GateReport(title string, doc *gate.Document) (plot.Report, error) {
	if title == "" || title == DefaultReportTitle {
		title = "rdma-bench gate: " + doc.Outcome
	}
	r := plot.Report{Title: title, Meta: append([][2]string{
		{"tool", strings.TrimSpace(doc.Tool.Name + " " + doc.Tool.Version)},
		{"started", doc.StartedAt.UTC().Format(time.RFC3339)},
		{"duration", strconv.FormatFloat(doc.Seconds, 'f', 0, 64) + " s"},
		{"status", doc.Status},
	}, gate.Sides(doc)...)}
	header, rows, notes := gate.Table(doc)
	sec := plot.Section{Title: "Gate", Tables: []plot.Table{{Header: header, Rows: rows, Notes: notes}}}
	if charts, err := GateCharts(doc); err == nil {
		sec.Charts = []*plot.Chart{charts[0].Chart}
	}
	r.Sections = append(r.Sections, sec)
	return r, nil
}

func gateCaption(doc *gate.Document) plot.Caption {
	return plot.Caption{Tool: strings.TrimSpace(doc.Tool.Name + " " + doc.Tool.Version), Date: doc.StartedAt.UTC().Format(time.RFC3339)}
}
