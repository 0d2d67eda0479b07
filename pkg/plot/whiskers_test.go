package plot

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// Every outcome has a mark and a legend entry of its own, only the
// outcomes the rows have are in the legend, and a change of five digits
// stays in the column right of the data.
func TestWhiskerOutcomes(t *testing.T) {
	five, minus := 5.0, -3.0
	rows := []Whisker{
		{Label: "write_lat 64 lat.p50", DeltaPct: 1.2, LoPct: 0.5, HiPct: 1.9, ThresholdPct: &five},
		{Label: "write_lat 64 lat.p99", DeltaPct: 12345.6, LoPct: 9000, HiPct: 15000, ThresholdPct: &five, Regression: true},
		{Label: "write_bw 64 bw", DeltaPct: -2.5, LoPct: math.NaN(), HiPct: math.NaN(), ThresholdPct: &minus, Inconclusive: true},
		{Label: "write_lat 64 cpu.op", DeltaPct: 3, LoPct: 1, HiPct: 5},
	}
	legend := func(rows []Whisker) ([]string, []svgText, *Chart) {
		ch, err := ComparisonWhiskers("Outcomes", rows, testCaption)
		texts := chartTexts(t, ch, err)
		var names []string
		for _, e := range ch.legend {
			names = append(names, e.label)
		}
		return names, texts, ch
	}
	names, texts, ch := legend(rows)
	want := []string{"within threshold", "regression", "inconclusive", "not gated (no threshold)", "95% interval", "threshold"}
	if !slices.Equal(names, want) {
		t.Errorf("legend %q, want %q", names, want)
	}
	for i := range rows {
		if got := rows[i].mark(); got != i {
			t.Errorf("row %d drawn as %q, want %q", i, outcomeMarks[got].name, outcomeMarks[i].name)
		}
	}
	checkNoOverlap(t, "outcomes", texts)
	for _, tx := range texts {
		if strings.TrimSpace(tx.s) == "+12345.6%" {
			// SVG y runs down, the layout's up; x is the same.
			if b := textBox(tx); b.x0 < ch.laidOut.data.Max.X.Points() {
				t.Errorf("+12345.6%% starts at x=%.1f, inside the data area (right edge %.1f)", b.x0, ch.laidOut.data.Max.X.Points())
			}
		}
	}
	if names, _, _ := legend(rows[:1]); !slices.Equal(names, []string{"within threshold", "95% interval", "threshold"}) {
		t.Errorf("one passing row: legend %q", names)
	}
	// Neither an interval nor a threshold: neither in the legend.
	if names, _, _ := legend([]Whisker{{Label: "x", DeltaPct: 1, LoPct: math.NaN(), HiPct: math.NaN()}}); !slices.Equal(names, []string{"not gated (no threshold)"}) {
		t.Errorf("one row without interval or threshold: legend %q", names)
	}
}

// TestWhiskerLogRatioAxis: the change axis is a log ratio, so x2 and /2
// lie equally far from 0, and a +15000% interval on one row leaves a
// +433% and a -71% on the others well clear of zero, where a linear axis
// put them within a few points of it.
func TestWhiskerLogRatioAxis(t *testing.T) {
	rows := []Whisker{
		{Label: "write_lat 64 lat.p50", DeltaPct: 433, LoPct: 300, HiPct: 600},
		{Label: "write_bw 64K bw", DeltaPct: -71, LoPct: -80, HiPct: -60},
		{Label: "write_lat 64 lat.p99_9", DeltaPct: 9000, LoPct: 4000, HiPct: 15000},
	}
	ch, err := ComparisonWhiskers("Log ratio", rows, testCaption)
	texts := chartTexts(t, ch, err)
	left, right := ch.laidOut.data.Min.X.Points(), ch.laidOut.data.Max.X.Points()
	zero, up, down := tickCentre(t, texts, "0%", true), tickCentre(t, texts, "+100%", true), tickCentre(t, texts, "-50%", true)
	if d := (up - zero) - (zero - down); math.Abs(d) > 1 {
		t.Errorf("+100%% is %.1f pt right of 0%%, -50%% %.1f pt left: want equal", up-zero, zero-down)
	}
	// Where the rows' marks fall, by the axis' own scale (x2 per up-zero).
	at := func(pct float64) float64 { return zero + math.Log1p(pct/100)/math.Ln2*(up-zero) }
	for _, pct := range []float64{433, -71} {
		if gap := math.Abs(at(pct) - zero); gap < 0.12*(right-left) {
			t.Errorf("%+g%% lies %.1f pt from 0%%, under 12%% of the %.0f pt axis", pct, gap, right-left)
		}
	}
	// Narrow changes keep nice per cents, signed.
	ch, err = ComparisonWhiskers("Narrow", []Whisker{{Label: "x", DeltaPct: 1.5, LoPct: -1, HiPct: 4}}, testCaption)
	texts = chartTexts(t, ch, err)
	for _, want := range []string{"0%", "+2%", "+4%"} {
		tickCentre(t, texts, want, true)
	}
}
