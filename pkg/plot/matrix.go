package plot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/vg"
)

// Grid is a matrix of values between hosts: Values[i][j] belongs to row
// Rows[i] and column Cols[j]; NaN means no data (e.g. a host with
// itself). RowAxis and ColAxis say what rows and columns are, e.g.
// "client host" and "server host"; Unit is the values' unit, e.g. "Gb/s".
type Grid struct {
	RowAxis, ColAxis string
	Rows, Cols       []string
	Values           [][]float64
	Unit             string
	// Marks, when not nil, follow each cell's written value: Marks[i][j]
	// for Values[i][j], such as a table's caveat marks ("*", " !"); ""
	// for none. The caption's notes explain them.
	Marks [][]string
	// Outlined, when not nil, draws a heavy red border inside each cell it
	// is true for, seen whether the values are written or not;
	// OutlinedLabel is its legend entry, such as "! not clean".
	Outlined      [][]bool
	OutlinedLabel string
}

// MaxLabelledCells is the largest number of rows or columns for which
// Matrix writes each cell's value into the cell.
const MaxLabelledCells = 16

// viridisControls are points of the viridis colour map, whose lightness
// rises steadily from dark purple to yellow, so it survives grey-scale.
var viridisControls = []color.Color{
	color.RGBA{0x44, 0x01, 0x54, 0xff}, color.RGBA{0x3b, 0x52, 0x8b, 0xff},
	color.RGBA{0x21, 0x91, 0x8c, 0xff}, color.RGBA{0x5e, 0xc9, 0x62, 0xff},
	color.RGBA{0xfd, 0xe7, 0x25, 0xff},
}

// Matrix draws g as a heat map, first row on top, with a colour bar for
// g.Unit; cells without data are hatched, and those g.Outlined says
// outlined in red. With at most MaxLabelledCells rows and columns each
// cell also shows its value, followed by its mark (g.Marks).
func Matrix(title string, g Grid, caption Caption) (*Chart, error) {
	lo, hi, err := g.check()
	if err != nil {
		return nil, fmt.Errorf("matrix %q: %w", title, err)
	}
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	cmap, err := moreland.NewLuminance(viridisControls)
	if err != nil {
		return nil, fmt.Errorf("matrix %q: colour map: %w", title, err)
	}
	cmap.SetMin(lo)
	cmap.SetMax(hi)
	p := newPlot(g.ColAxis)
	ch := newChart(title, p, g.RowAxis, caption)
	nr, nc := len(g.Rows), len(g.Cols)
	// Cells about square, at most 60 pt; a small matrix gets a smaller
	// chart rather than huge cells.
	cell := min(max(460/vg.Length(max(nr, nc)), 12), 60)
	ch.width = chartWidth - 460 + vg.Length(nc)*cell
	ch.height = max(vg.Length(nr)*cell+200, 300)
	mp := &matrixPlot{grid: g, cmap: cmap, labelled: nr <= MaxLabelledCells && nc <= MaxLabelledCells}
	p.Add(mp)
	p.X.Padding, p.Y.Padding = 0, 0
	fitX := categoryX(p, g.Cols)
	var yt plot.ConstantTicks
	for i, r := range g.Rows {
		yt = append(yt, plot.Tick{Value: float64(nr - 1 - i), Label: r})
	}
	p.Y.Tick.Marker = yt
	p.Y.Min, p.Y.Max = -0.5, float64(nr)-0.5
	ch.fit = fitX
	ch.side = colourBar(cmap, g.Unit)
	ch.legend = []legendEntry{{"no data", []plot.Thumbnailer{swatchThumb{fill: color.White, hatch: true}}}}
	if g.anyOutlined() {
		ch.legend = append(ch.legend, legendEntry{g.OutlinedLabel, []plot.Thumbnailer{swatchThumb{fill: color.White, outline: true}}})
	}
	return ch, nil
}

// check validates the grid and returns its finite values' range.
func (g Grid) check() (lo, hi float64, err error) {
	if len(g.Rows) == 0 || len(g.Cols) == 0 {
		return 0, 0, fmt.Errorf("%d rows by %d columns: want at least one of each", len(g.Rows), len(g.Cols))
	}
	if len(g.Values) != len(g.Rows) {
		return 0, 0, fmt.Errorf("%d rows of values for %d row labels: want one row per label", len(g.Values), len(g.Rows))
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for i, row := range g.Values {
		if len(row) != len(g.Cols) {
			return 0, 0, fmt.Errorf("row %q: %d values for %d columns: want one per column (NaN for no data)", g.Rows[i], len(row), len(g.Cols))
		}
		for j, v := range row {
			if math.IsInf(v, 0) {
				return 0, 0, fmt.Errorf("row %q column %q: %v: want a finite number or NaN for no data", g.Rows[i], g.Cols[j], v)
			}
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 0, fmt.Errorf("no cell has data: want at least one finite value")
	}
	if err := checkShape("marks", g.Marks, len(g.Rows), len(g.Cols)); err != nil {
		return 0, 0, err
	}
	if err := checkShape("outlined cells", g.Outlined, len(g.Rows), len(g.Cols)); err != nil {
		return 0, 0, err
	}
	return lo, hi, nil
}

// checkShape refuses cells of what, when given, that are not one per
// cell of a rows by cols grid.
func checkShape[T any](what string, cells [][]T, rows, cols int) error {
	if cells == nil {
		return nil
	}
	if len(cells) != rows {
		return fmt.Errorf("%d rows of %s for %d rows: want one row per row, or none", len(cells), what, rows)
	}
	for i, row := range cells {
		if len(row) != cols {
			return fmt.Errorf("row %d of %s: %d cells for %d columns: want one per column", i, what, len(row), cols)
		}
	}
	return nil
}

// anyOutlined tells whether a cell with data is outlined.
func (g Grid) anyOutlined() bool {
	for i, row := range g.Outlined {
		for j, o := range row {
			if o && !math.IsNaN(g.Values[i][j]) {
				return true
			}
		}
	}
	return false
}

// luminance is c's relative luminance (0 black .. 1 white), to choose
// black or white text on it.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
}
