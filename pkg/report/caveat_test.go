package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

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

// TestTitleNamesTheWays: a table's title names every way of running that
// changes what is measured (post API, SRQ, multicast groups, huge pages),
// and leaves out the host's own pages, whatever their size.
func TestTitleNamesTheWays(t *testing.T) {
	r := &Result{Params: Params{Workload: "send_bw", Transport: "UD", SizeBytes: 64, PostAPI: "classic", SRQ: true, Mcast: true,
		McastGroups: []string{"ff0e::1", "ff0e::2"}, PageBytes: 2 << 20}, Kind: Bandwidth}
	if title := groupTitle(groupResults([]*Result{r})[0]); !strings.Contains(title, " post_api=classic srq=true mcast_groups=2 pages=2 MiB") {
		t.Errorf("title %q: want post_api, srq, mcast_groups and pages", title)
	}
	for _, page := range []int{4 << 10, 16 << 10, 64 << 10} {
		r.Params = Params{Workload: "write_lat", SizeBytes: 64, PageBytes: page}
		r.Kind = Latency
		if title := groupTitle(groupResults([]*Result{r})[0]); strings.Contains(title, "pages=") || strings.Contains(title, "srq") {
			t.Errorf("title %q (pages of %d bytes): the usual ways need no word", title, page)
		}
	}
}

// TestTitleCountsOneSidesGroups: mcast_groups counts the server's
// groups, not the client's too where the client receives (a latency
// workload, -b).
func TestTitleCountsOneSidesGroups(t *testing.T) {
	gids := []string{"ff0e::1", "ff0e::2", "ff0e::3", "ff0e::4"}
	for _, c := range []struct {
		workload string
		kind     Kind
		bidir    bool
		want     string
	}{
		{"send_bw", Bandwidth, false, "mcast_groups=4"},
		{"send_bw", Bandwidth, true, "mcast_groups=2"},
		{"send_lat", Latency, false, "mcast_groups=2"},
	} {
		r := &Result{Params: Params{Workload: c.workload, Transport: "UD", SizeBytes: 64, Bidir: c.bidir, Mcast: true, McastGroups: gids}, Kind: c.kind}
		if title := groupTitle(groupResults([]*Result{r})[0]); !strings.Contains(title, " "+c.want) {
			t.Errorf("%s (bidir %v): title %q, want %s", c.workload, c.bidir, title, c.want)
		}
	}
}

// TestSuiteNamesTheWays: the suite's table, which has no titles, names
// the ways of running of its results on a settings line, a way that not
// every RDMA result has with the workloads that have it; none without any.
func TestSuiteNamesTheWays(t *testing.T) {
	res := func(w, transport string, srq bool) *Result {
		p := Params{Workload: w, Transport: transport, SizeBytes: 64, Completion: "poll", SRQ: srq}
		if transport != "TCP" {
			p.PostAPI, p.PageBytes = "ex", 2<<20
		}
		return &Result{Params: p, Kind: Latency, SamplesNS: []int64{9000, 9100}, Ops: 2}
	}
	doc := &Document{Results: []*Result{
		res("write_lat", "RC", false), res("send_lat", "RC", true), res("tcp_lat", "TCP", false),
		res("send_lat", "RC", true), // another size: send_lat named once
	}}
	c := BaselineEncoder{Baseline: func(w string) (string, bool) { return "tcp_lat", w != "tcp_lat" }}
	var b strings.Builder
	if err := c.Encode(&b, doc); err != nil {
		t.Fatal(err)
	}
	if want := "\nsettings: post_api=ex, pages=2 MiB, srq=true (send_lat)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("no %q in:\n%s", want, b.String())
	}
	for _, r := range doc.Results {
		r.Params.PostAPI, r.Params.SRQ, r.Params.PageBytes = "", false, 64<<10 // a 64 KiB-page host's own pages
	}
	b.Reset()
	if err := c.Encode(&b, doc); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "settings:") {
		t.Errorf("a settings line without any setting:\n%s", b.String())
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
	for _, want := range []string{"| samples |", "write_lat ! |", "9.300*", display.UncleanNote, display.ThinNote,
		"note: write_lat 64 bytes: counters: client: not clean: duplicate_request +3 packets"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "tcp_lat 64 bytes: warning: "+display.TickWarning); n != 1 {
		t.Errorf("the tick warning %d times, want once:\n%s", n, out)
	}
}

// An expectation's verdict reads the same in every view: the suite's
// comparison notes the failed one and counts them all, hgrm comments on
// it, and the words are document.Expectation.Text's.
func TestExpectationViews(t *testing.T) {
	doc := fixtureDocument()
	lat := doc.Results[0]
	ceiling, p50 := 0.5, 1.0
	lat.Expectations = append(lat.Expectations, document.Expectation{Expect: "lat.p50<=500ns", Source: "--expect", Metric: "lat.p50", Op: "<=",
		Limit: ceiling, Unit: "us", Value: &p50})
	want := "lat.p50<=500ns failed: 1.000 us, want <= 0.5000 us"
	if got := lat.Expectations[1].Text(); got != want {
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
	if document.FailedExpectations(nil) != nil || ExpectationSummary(nil) != "" {
		t.Error("no expectation: no words")
	}
}

// TestCSVCaveats: an unclean row's reason says what the counters saw, and
// the thin column names the percentiles its samples cannot resolve.
func TestCSVCaveats(t *testing.T) {
	f := false
	r := &Result{Params: Params{Workload: "write_bw", SizeBytes: 65536}, Kind: Bandwidth, Status: StatusOK,
		Counters: &NICCounters{Clean: &f, Verdict: "not clean: duplicate_request +1820 packets"}}
	row := csvRow(r, Summarize(r))
	col := func(name string) string { return row[slices.Index(csvHeader, name)] }
	if col("reason") != "counters: not clean: duplicate_request +1820 packets" || col("clean") != "false" || col("thin") != "" {
		t.Errorf("unclean row: reason %q, clean %q, thin %q", col("reason"), col("clean"), col("thin"))
	}
	if len(row) != len(csvHeader) {
		t.Errorf("%d cells under %d columns", len(row), len(csvHeader))
	}
	// The reason is the table's note without the row's name: the wire
	// check too, and a clean run that put other packets on the wire.
	tr := true
	for _, c := range []struct {
		clean      *bool
		wire, want string
	}{
		{&f, "within the expected overhead (tx_packets 10)", "counters: not clean: duplicate_request +1820 packets; within the expected overhead (tx_packets 10)"},
		{&tr, "more than expected: tx_packets 900, want 10", "counters: clean; more than expected: tx_packets 900, want 10"},
		{&tr, "within the expected overhead (tx_packets 10)", ""},
	} {
		r.Counters = &NICCounters{Clean: c.clean, Verdict: "clean", Wire: c.wire}
		if !*c.clean {
			r.Counters.Verdict = "not clean: duplicate_request +1820 packets"
		}
		row = csvRow(r, Summarize(r))
		note := rowNotes("65536 bytes", r, Summarize(r))
		if col("reason") != c.want {
			t.Errorf("reason %q, want %q", col("reason"), c.want)
		}
		if c.want != "" && (len(note) != 1 || note[0].text != "counters: 65536 bytes: "+strings.TrimPrefix(c.want, "counters: ")) {
			t.Errorf("table note %+v, want the reason's words", note)
		}
	}
}

// TestHgrmUnclean: hgrm comments on an unclean run once, in the table's
// words, with what the counters saw.
func TestHgrmUnclean(t *testing.T) {
	doc := fixtureDocument()
	f := false
	doc.Results[0].Counters = &NICCounters{Clean: &f, Verdict: "not clean: duplicate_request +1820 packets"}
	h := string(encode(t, "hgrm", doc))
	want := "# " + display.UncleanWhat + ": write_lat 2 bytes: the device's error counters moved"
	if !strings.Contains(h, want) || strings.Count(h, "not clean") != 2 || !strings.Contains(h, "; counters: not clean: duplicate_request +1820 packets\n") {
		t.Errorf("hgrm, want %q once with the verdict:\n%s", want, h)
	}
}
