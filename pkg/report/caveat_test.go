package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/document"
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

// TestSweepOneTable: sizes whose warm-up was capped differently (a -D
// sweep) share one table, whose title gives the range.
func TestSweepOneTable(t *testing.T) {
	a := &Result{Params: Params{Workload: "write_lat", SizeBytes: 2, Warmup: 1000, DurationS: 1}, Kind: Latency}
	b := &Result{Params: Params{Workload: "write_lat", SizeBytes: 1 << 20, Warmup: 20, DurationS: 1}, Kind: Latency}
	g := groupResults([]*Result{a, b})
	if len(g) != 1 {
		t.Fatalf("%d groups, want 1", len(g))
	}
	if title := groupTitle(g[0]); !strings.Contains(title, "warmup=20..1000") {
		t.Errorf("title %q: want the warm-up range", title)
	}
}

// TestComparisonCaveats: the suite's table shows each latency row's
// sample count and marks a thin percentile, an unclean run (with the
// counters that moved) and a median at the scheduler's tick (once, though
// the baseline serves several rows).
func TestComparisonCaveats(t *testing.T) {
	tick := make([]int64, 50)
	for i := range tick {
		tick[i] = 4_000_000 + int64(i)
		if i%4 == 0 {
			tick[i] = 20_000 // a fast iteration between the ticks
		}
	}
	f := false
	lat := func(w string, ns []int64, clean *bool) *Result {
		r := &Result{Params: Params{Workload: w, SizeBytes: 64, Completion: "poll"}, Kind: Latency, SamplesNS: ns, Ops: uint64(len(ns))}
		if clean != nil {
			r.Counters = &NICCounters{Clean: clean, Verdict: "client: not clean: duplicate_request +3 packets"}
		}
		return r
	}
	doc := &Document{Results: []*Result{
		lat("write_lat", []int64{9000, 9100, 9200, 9300}, &f),
		lat("send_lat", []int64{9000, 9100, 9200, 9300}, nil),
		lat("tcp_lat", tick, nil),
	}}
	var b strings.Builder
	c := BaselineEncoder{Baseline: func(w string) (string, bool) { return "tcp_lat", w != "tcp_lat" }}
	if err := c.Encode(&b, doc); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"| samples |", "write_lat ! |", "9.300*", UncleanNote, ThinNote,
		"note: write_lat 64 bytes: counters: client: not clean: duplicate_request +3 packets"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "tcp_lat 64 bytes: warning: "+TickWarning); n != 1 {
		t.Errorf("the tick warning %d times, want once:\n%s", n, out)
	}
}

func TestSignificant(t *testing.T) {
	for v, want := range map[float64]string{2.0034: "2.003", 361.21: "361.2", 0.000478: "0.0004780", 1.2e-8: "0.00000001200", 123456: "123456", 0: "0"} {
		if got := Significant(v, 4); got != want {
			t.Errorf("Significant(%g, 4) = %s, want %s", v, got, want)
		}
	}
}

// An expectation's verdict reads the same in every view: the suite's
// comparison notes the failed one and counts them all, hgrm comments on
// it, and the words are ExpectationText's.
func TestExpectationViews(t *testing.T) {
	doc := fixtureDocument()
	lat := doc.Results[0]
	ceiling, p50 := 0.5, 1.0
	lat.Expectations = append(lat.Expectations, document.Expectation{Expect: "lat.p50<=500ns", Source: "--expect", Metric: "lat.p50", Op: "<=",
		Limit: ceiling, Unit: "us", Value: &p50})
	want := "lat.p50<=500ns failed: 1.000 us, want <= 0.5000 us"
	if got := ExpectationText(lat.Expectations[1]); got != want {
		t.Fatalf("text %q, want %q", got, want)
	}
	var buf bytes.Buffer
	c := BaselineEncoder{Baseline: func(w string) (string, bool) { return "tcp_lat", w != "tcp_lat" }}
	if err := c.Encode(&buf, doc); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "note: write_lat 2 bytes: expect: "+want+"\n") || !strings.Contains(out, "note: expect: 1 of 3 met\n") ||
		strings.Contains(out, "lat.p50<=3us") {
		t.Errorf("comparison:\n%s", out)
	}
	if h := string(encode(t, "hgrm", doc)); !strings.Contains(h, "# expect: "+want+"\n") {
		t.Errorf("hgrm:\n%s", h)
	}
	if FailedExpectations(nil) != nil || ExpectationSummary(nil) != "" {
		t.Error("no expectation: no words")
	}
}
