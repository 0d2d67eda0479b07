package plot

import (
	"bytes"
	"strings"
	"testing"
)

// TestMatrixMarks: a cell's mark follows its written value, an outlined
// cell has a red border (regressed's colour) and its legend entry, and the
// caption's notes are drawn whole, each from a line of its own.
func TestMatrixMarks(t *testing.T) {
	g := matrix(4, "Gb/s")
	g.Marks, g.Outlined, g.OutlinedLabel = make([][]string, 4), make([][]bool, 4), "! not clean"
	for i := range 4 {
		g.Marks[i], g.Outlined[i] = make([]string, 4), make([]bool, 4)
	}
	g.Values[0][1], g.Marks[0][1], g.Outlined[0][1] = 95, " !", true
	g.Values[1][0], g.Marks[1][0] = 7.5, "*"
	note := "! not clean: the counters moved during the run, a note long enough to be wrapped onto a second line of the caption below the heat map"
	c := testCaption
	c.Notes = []string{note, "* thin"}
	ch, err := Matrix("Marked", g, c)
	texts := textSet(chartTexts(t, ch, err))
	for _, want := range []string{"95.0 !", "7.50*", "! not clean", "* thin"} {
		if texts[want] == 0 {
			t.Errorf("no text %q in %v", want, texts)
		}
	}
	starts := false
	for s := range texts {
		starts = starts || strings.HasPrefix(s, "! not clean: the counters moved")
	}
	if !starts {
		t.Errorf("no caption line starts with the note: %v", texts)
	}
	b, err := ch.svgBytes()
	if err != nil {
		t.Fatal(err)
	}
	red := "stroke:#C01B1B"
	if n := bytes.Count(bytes.ToUpper(b), []byte(strings.ToUpper(red))); n != 2 {
		t.Errorf("%d red outlines, want 2 (the cell and its legend swatch)", n)
	}
	g.Outlined = nil
	ch, err = Matrix("Unmarked", g, testCaption)
	if texts := textSet(chartTexts(t, ch, err)); texts["! not clean"] != 0 {
		t.Error("a legend entry for outlined cells without any")
	}
}
