package fabric

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// Cell states of a Matrix.
const (
	CellNone   = iota // not scheduled (or src == dst)
	CellOK            // measured; Value holds the figure
	CellNoFig         // measured, but without this metric
	CellFailed        // scheduled and failed
)

// Matrix is one metric over every pair: row src (measuring), column dst
// (serving).
type Matrix struct {
	// Metric is the figure's name.
	Metric string
	// Members label the rows and columns.
	Members []Member
	// Values are the figures, row-major (src*Size+dst); NaN where State
	// is not CellOK.
	Values []float64
	// State is each cell's Cell* state.
	State []uint8
	// Caveats are each measured cell's Caveat* bits: what its pair's
	// result says of the figure.
	Caveats []uint8
}

// Caveat bits of a Matrix's cell.
const (
	// CaveatThin: a percentile from fewer samples than it needs
	// (display.Thin), marked display.ThinMark.
	CaveatThin = 1 << iota
	// CaveatUnclean: the pair's port counters saw its run unclean,
	// marked display.UncleanMark.
	CaveatUnclean
)

// Caveat returns the Caveat* bits of src -> dst.
func (m *Matrix) Caveat(src, dst int) uint8 { return m.Caveats[src*m.Size()+dst] }

// Size is the number of rows (and columns).
func (m *Matrix) Size() int { return len(m.Members) }

// At returns the figure of src -> dst and whether it was measured.
func (m *Matrix) At(src, dst int) (float64, bool) {
	i := src*m.Size() + dst
	return m.Values[i], m.State[i] == CellOK
}

// Matrix builds metric's matrix from the document's pairs.
func (d *Document) Matrix(metric string) *Matrix {
	n := len(d.Members)
	m := &Matrix{Metric: metric, Members: d.Members, Values: make([]float64, n*n), State: make([]uint8, n*n), Caveats: make([]uint8, n*n)}
	for i := range m.Values {
		m.Values[i] = math.NaN()
	}
	_ = d.EachPair(func(p *PairOutcome) error { // a read error: Err says so
		if p.Src < 0 || p.Src >= n || p.Dst < 0 || p.Dst >= n {
			return nil
		}
		c := p.Src*n + p.Dst
		switch v, ok := p.Figures.Get(metric); {
		case !p.OK():
			m.State[c] = CellFailed
		case !ok:
			m.State[c] = CellNoFig
		default:
			m.State[c], m.Values[c] = CellOK, v
			thin, unclean, _ := p.caveatOf(metric)
			if thin {
				m.Caveats[c] |= CaveatThin
			}
			if unclean {
				m.Caveats[c] |= CaveatUnclean
			}
		}
		return nil
	})
	return m
}

// WriteMatrix renders m as a text table: a row per src ("2 host-c"), a
// column per dst rank; "FAIL" for a failed pair, "n/a" for a pair measured
// without this metric, "-" on the diagonal, blank where nothing was
// scheduled. A figure carries the run tables' marks of its pair's caveats
// (display.Marked: "2.000* !"), explained below the table
// (display.Footnotes).
func WriteMatrix(w io.Writer, m *Matrix) error {
	if _, err := fmt.Fprintf(w, "%s: rows measure (src), columns serve (dst)\n", m.Metric); err != nil {
		return fmt.Errorf("write matrix %s: %w", m.Metric, err)
	}
	header, rows := m.Table()
	hdr := make([]any, len(header))
	for i, h := range header {
		hdr[i] = h
	}
	tbl := display.NewTable(w, true, hdr...)
	cells := make([][]string, 0, len(rows))
	for _, row := range rows {
		if err := tbl.Append(row); err != nil {
			return fmt.Errorf("write matrix %s: %w", m.Metric, err)
		}
		cells = append(cells, row[1:])
	}
	if err := tbl.Render(); err != nil {
		return fmt.Errorf("write matrix %s: %w", m.Metric, err)
	}
	for _, note := range display.Footnotes(cells) {
		if _, err := fmt.Fprintln(w, note); err != nil {
			return fmt.Errorf("write matrix %s: %w", m.Metric, err)
		}
	}
	return nil
}

// Table is m's header (`src\dst` and each dst rank) and rows (src
// "2 host-c", then each cell), as WriteMatrix writes them.
func (m *Matrix) Table() (header []string, rows [][]string) {
	n := m.Size()
	header = append(make([]string, 0, n+1), `src\dst`)
	for _, mb := range m.Members {
		header = append(header, strconv.Itoa(mb.Rank))
	}
	rows = make([][]string, 0, n)
	for s := range n {
		row := make([]string, 0, n+1)
		row = append(row, fmt.Sprintf("%d %s", m.Members[s].Rank, m.Members[s].Hostname))
		for d := range n {
			row = append(row, m.cell(s, d))
		}
		rows = append(rows, row)
	}
	return header, rows
}

func (m *Matrix) cell(s, d int) string {
	i := s*m.Size() + d
	switch m.State[i] {
	case CellOK:
		return display.Marked(display.Significant(m.Values[i], 4), m.Caveats[i]&CaveatThin != 0, m.Caveats[i]&CaveatUnclean != 0)
	case CellFailed:
		return "FAIL"
	case CellNoFig:
		return "n/a"
	}
	if s == d {
		return "-"
	}
	return ""
}
