package plot

import (
	"math"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"gonum.org/v1/plot"
)

// Liberation Sans has Arial's advance widths: 556/1000 em for a digit,
// 667/1000 for "K"; "64K" at 10 pt is 17.79 pt wide.
func TestTextBoxUsesArialMetrics(t *testing.T) {
	b := textBox(svgText{s: "64K", x: 100, y: 50, size: 10})
	if w := b.x1 - b.x0; math.Abs(w-17.79) > 0.05 {
		t.Errorf("width of \"64K\" at 10 pt = %.2f pt, want 17.79", w)
	}
	if b.y0 >= 50 || b.y1 <= 50 {
		t.Errorf("box %+v does not straddle the baseline at y=50", b)
	}
}

// The overlap check bites: labelling every power of two of a 24-size
// sweep crowds the axis, and the check must say so.
func TestOverlapCheckFindsCrowdedTicks(t *testing.T) {
	ch, err := LatencyVsSize("crowded", latencySeries(sizesFrom(1, 8<<20)), Caption{})
	if err != nil {
		t.Fatal(err)
	}
	var all plot.ConstantTicks
	for _, n := range sizesFrom(1, 8<<20) {
		all = append(all, plot.Tick{Value: float64(n), Label: display.SizeTick(n)})
	}
	ch.plot.X.Tick.Marker = all
	b, err := ch.svgBytes()
	if err != nil {
		t.Fatal(err)
	}
	texts, _ := parseSVG(t, b)
	if len(overlapping(texts)) == 0 {
		t.Error("24 labels on one axis found no overlap: the check cannot see crowding")
	}
}
