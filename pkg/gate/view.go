package gate

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
)

// A saved gate document's offline view (rdma-bench report and plot): the
// table, notes and summary of the terminal's table, and the rows'
// changes drawn as the comparison's whiskers.

// Parse reads a saved gate document: its kind must be
// [document.KindGate] and its schema version this package's; an error
// names what is wrong.
func Parse(b []byte) (*Document, error) {
	if err := document.CheckHead(b, document.KindGate, SchemaVersion, SchemaVersion); err != nil {
		return nil, err
	}
	d := &Document{}
	if err := json.Unmarshal(b, d); err != nil {
		return nil, fmt.Errorf("gate document: %w", err)
	}
	for i, r := range d.Rows {
		if len(r.Base) != len(r.Candidate) {
			return nil, fmt.Errorf("rows[%d] (%s): %d base values and %d candidate values: want one of each a pair", i, r.Label(), len(r.Base), len(r.Candidate))
		}
	}
	return d, nil
}

// Table is the gate's table as the terminal shows it: its columns, a row
// of cells a point, and the notes and summary line below it.
func Table(d *Document) (header []string, rows [][]string, notes []string) {
	for _, r := range d.Rows {
		rows = append(rows, rowCells(r))
	}
	return columns, rows, append(allNotes(d), Summary(d))
}

// Sides and Settings are the gate's sides and decision settings in the
// table's words, for a page's key/value lines.
func Sides(d *Document) [][2]string {
	return [][2]string{{"base", sideText(d.Base)}, {"candidate", sideText(d.Candidate)}, {"settings", settingsText(d)}}
}

// Whiskers are the rows' changes, each with its interval (none while
// unbounded) and its threshold's edge, failed rows marked as regressions
// and undecided ones as inconclusive: the comparison chart's whiskers.
func Whiskers(d *Document) []plot.Whisker {
	var out []plot.Whisker
	for _, r := range d.Rows {
		if len(r.Looks) == 0 {
			continue
		}
		w := plot.Whisker{Label: r.Label() + " " + r.Metric, DeltaPct: r.EstimatePct, LoPct: float64(r.LoPct), HiPct: float64(r.HiPct),
			Level: levelCell(r), Regression: r.Decision == compare.Fail, Inconclusive: r.Decision == compare.Undecided,
			Unclean: r.Unclean > 0}
		if math.IsInf(w.LoPct, 0) || math.IsInf(w.HiPct, 0) || math.IsNaN(w.LoPct) || math.IsNaN(w.HiPct) {
			w.LoPct, w.HiPct = math.NaN(), math.NaN()
		}
		if th, err := compare.ParseThresholds(r.Threshold); err == nil && len(th) == 1 {
			edge := th[0].EdgePct()
			w.ThresholdPct = &edge
		}
		out = append(out, w)
	}
	return out
}
