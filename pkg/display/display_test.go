package display

import (
	"strings"
	"testing"
)

// TestFigure: the decimals asked for, or more so that a nonzero figure
// keeps three significant digits; zero stays zero.
func TestFigure(t *testing.T) {
	for _, c := range []struct {
		v    float64
		prec int
		want string
	}{
		{0, 3, "0.000"}, {1.5, 3, "1.500"}, {0.0123, 3, "0.012"}, {0.000478, 3, "0.000478"},
		{0.0001049, 4, "0.000105"}, {0.0005, 4, "0.000500"}, {-0.0004, 2, "-0.000400"},
		{12345.678, 2, "12345.68"}, {0.004, 1, "0.00400"},
	} {
		if got := Figure(c.v, c.prec); got != c.want {
			t.Errorf("Figure(%v, %d) = %q, want %q", c.v, c.prec, got, c.want)
		}
	}
}

// TestThin: p99 needs 100 samples, p99.9 1,000, p99.99 10,000; the
// mark and its footnote follow.
func TestThin(t *testing.T) {
	for q, n := range map[float64]int64{90: 10, 99: 100, 99.9: 1000, 99.99: 10000} {
		if MinSamples(q) != n || !Thin(q, n-1) || Thin(q, n) {
			t.Errorf("p%v: MinSamples %d, want %d; thin below it only", q, MinSamples(q), n)
		}
	}
	if Thin(99, 0) {
		t.Error("no samples: no percentile to mark")
	}
	got := Percentile(16718.356, 99.9, 18, 3)
	if got != "16718.356"+ThinMark {
		t.Errorf("Percentile = %q", got)
	}
	f := false
	notes := Footnotes([][]string{{RowName("write_lat", &f), got}})
	if len(notes) != 2 || notes[0] != UncleanNote || notes[1] != ThinNote {
		t.Errorf("footnotes %q", notes)
	}
	tr := true
	if RowName("x", &tr) != "x" || RowName("x", nil) != "x" || len(Footnotes([][]string{{"1.0", "x"}})) != 0 {
		t.Error("a clean or unread row and plain cells take no mark")
	}
	if !strings.HasPrefix(ThinNote, ThinMark+" ") || !strings.HasPrefix(UncleanNote, UncleanMark+" ") {
		t.Error("each note starts with its mark")
	}
}

// TestMarked: a cell that is a run of its own carries both marks, thin
// then unclean, and the footnotes explain both from the one cell.
func TestMarked(t *testing.T) {
	cases := []struct {
		thin, unclean bool
		want          string
		notes         []string
	}{
		{false, false, "2.000", nil},
		{true, false, "2.000" + ThinMark, []string{ThinNote}},
		{false, true, "2.000 " + UncleanMark, []string{UncleanNote}},
		{true, true, "2.000" + ThinMark + " " + UncleanMark, []string{UncleanNote, ThinNote}},
	}
	for _, c := range cases {
		got := Marked("2.000", c.thin, c.unclean)
		if got != c.want {
			t.Errorf("Marked(thin %v, unclean %v) = %q, want %q", c.thin, c.unclean, got, c.want)
		}
		if notes := Footnotes([][]string{{"0 host-a", got}}); strings.Join(notes, "|") != strings.Join(c.notes, "|") {
			t.Errorf("footnotes of %q = %q, want %q", got, notes, c.notes)
		}
	}
}

func TestSignificant(t *testing.T) {
	for v, want := range map[float64]string{2.0034: "2.003", 361.21: "361.2", 0.000478: "0.0004780", 1.2e-8: "0.00000001200", 123456: "123456", 0: "0"} {
		if got := Significant(v, 4); got != want {
			t.Errorf("Significant(%g, 4) = %s, want %s", v, got, want)
		}
	}
}

func TestAtTick(t *testing.T) {
	for us, want := range map[float64]bool{3651: true, 3900: true, 4000: true, 7979: true, 8100: true, 21: false, 3500: false, 6000: false, 20000: false, 100: false} {
		if got := AtTick(us, 20); got != want {
			t.Errorf("AtTick(%g, 20) = %v, want %v", us, got, want)
		}
	}
	// Real transfers near a multiple of the tick (make bench's read_lat
	// and tcp_lat at 1 MiB in the VM): the fastest sample is near the
	// median, not a fast iteration between ticks.
	for _, c := range [][2]float64{{16368, 14900}, {4329, 3800}, {8000, 2100}} {
		if AtTick(c[0], c[1]) {
			t.Errorf("AtTick(%g, %g): a transfer of that length is marked", c[0], c[1])
		}
	}
}

func TestSizeTick(t *testing.T) {
	for n, want := range map[int]string{
		1: "1", 2: "2", 64: "64", 1023: "1023", 1024: "1K", 4096: "4K", 65536: "64K",
		1 << 20: "1M", 8 << 20: "8M", 1536: "1.5K", 1 << 30: "1G", 3 << 19: "1.5M",
	} {
		if got := SizeTick(n); got != want {
			t.Errorf("SizeTick(%d) = %q, want %q", n, got, want)
		}
	}
}
