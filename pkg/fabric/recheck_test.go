package fabric

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// noisy returns a factor for fakeMeasurer: every measurement is off by up
// to +-pct percent (uniform, seeded), times slow(peer, n).
func noisy(seed uint64, pct float64, slow func(peer, n int) float64) func(peer, n int) float64 {
	rng := rand.New(rand.NewPCG(seed, 27))
	return func(peer, n int) float64 {
		k := 1 + pct/100*(2*rng.Float64()-1)
		if slow != nil {
			k *= slow(peer, n)
		}
		return k
	}
}

// transient is 5x worse on the first measurement of pair src->dst (the
// sweep's: the VM's 8 ms cells), then like the others.
func transient(dst int) func(peer, n int) float64 {
	return func(peer, n int) float64 {
		if peer == dst && n == 1 {
			return 5
		}
		return 1
	}
}

// runRecheck sweeps w and fails the test on any rank's error.
func runRecheck(t *testing.T, w *world) *Document {
	t.Helper()
	doc, errs := w.run(t)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	return doc
}

// checkRechecks checks what every suspect's re-measurement must hold: as
// many figures as pairs, the order alternated from suspect first, the
// pairs within the most, a look at every LookEvery pairs and a decided
// one stopped at its look.
func checkRechecks(t *testing.T, doc *Document) {
	t.Helper()
	c := doc.Recheck
	if len(doc.Suspects) > 0 && (c == nil || c.Looks != (c.MaxPairs+c.LookEvery-1)/c.LookEvery ||
		c.Confidence != (compare.Plan{Alpha: c.Alpha, Rows: len(doc.Suspects), Looks: c.Looks}).Confidence()) {
		t.Fatalf("recheck settings %+v for %d suspects", c, len(doc.Suspects))
	}
	for _, s := range doc.Suspects {
		r := s.Recheck
		if r == nil {
			t.Fatalf("%s %d->%d not re-measured", s.Metric, s.Src.Rank, s.Dst.Rank)
		}
		if len(r.Suspect) != r.Pairs || len(r.Reference) != r.Pairs || len(r.SuspectFirst) != r.Pairs || r.Pairs > c.MaxPairs {
			t.Errorf("%s %d->%d: %d pairs, %d/%d/%d values", s.Metric, s.Src.Rank, s.Dst.Rank, r.Pairs, len(r.Suspect), len(r.Reference), len(r.SuspectFirst))
		}
		for i, first := range r.SuspectFirst {
			if first != (i%2 == 0) {
				t.Errorf("%s %d->%d: pair %d suspect first %v", s.Metric, s.Src.Rank, s.Dst.Rank, i+1, first)
			}
		}
		if r.Error == "" && (r.Pairs%c.LookEvery != 0 && r.Pairs != c.MaxPairs && !r.TimeUp || r.Looks != (r.Pairs+c.LookEvery-1)/c.LookEvery) {
			t.Errorf("%s %d->%d: %d looks at %d pairs", s.Metric, s.Src.Rank, s.Dst.Rank, r.Looks, r.Pairs)
		}
		if r.Decision == compare.Undecided && r.Error == "" && r.Pairs != c.MaxPairs && !r.TimeUp {
			t.Errorf("%s %d->%d: undecided after %d of %d pairs", s.Metric, s.Src.Rank, s.Dst.Rank, r.Pairs, c.MaxPairs)
		}
	}
}

// findings is the document's findings text.
func findings(t *testing.T, doc *Document) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteFindings(&b, doc, 0); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRecheckAlike: every pair alike within +-3%, but two pairs were 5x
// worse in the sweep (once): both are suspects in both metrics, and
// re-measured one pair at a time they are cleared; the exit status is 0.
// The re-measurements ran one at a time.
func TestRecheckAlike(t *testing.T) {
	w := newWorld(t, 4)
	spans := &spanLog{}
	for r, m := range w.measurers {
		m.spans = spans
		m.factor = noisy(uint64(r), 3, nil)
	}
	w.measurers[0].factor = noisy(0, 3, transient(3))
	w.measurers[2].factor = noisy(2, 3, transient(1))
	doc := runRecheck(t, w)
	checkRechecks(t, doc)
	var got []string
	for _, s := range doc.Suspects {
		got = append(got, s.Metric+" "+s.Src.String()[:6]+"->"+s.Dst.String()[:6]+" "+s.Finding())
		if s.Recheck.Pairs < 12 || s.Recheck.Error != "" {
			t.Errorf("%s %d->%d decided after %d pairs (%q): 6 pairs cannot clear 4 suspects at 99.9%%",
				s.Metric, s.Src.Rank, s.Dst.Rank, s.Recheck.Pairs, s.Recheck.Error)
		}
	}
	want := []string{"bw_gbps rank 0->rank 3 cleared", "bw_gbps rank 2->rank 1 cleared",
		"lat.p50_us rank 0->rank 3 cleared", "lat.p50_us rank 2->rank 1 cleared"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("suspects %q, want %q", got, want)
	}
	if ExitStatus(doc) != 0 || len(doc.Outliers()) != 0 {
		t.Errorf("exit %d, outliers %+v", ExitStatus(doc), doc.Outliers())
	}
	text := findings(t, doc)
	if !strings.Contains(text, "4 suspects, worse than the median by more than 20% in the sweep;") ||
		!strings.Contains(text, ": 0 outliers, 4 cleared\n") || !strings.HasSuffix(text, "no failed pair, no outlier (threshold 20% worse than the median) in 12 pairs\n") {
		t.Errorf("findings:\n%s", text)
	}
	// The sweep ran two pairs at a time; every re-measurement alone.
	s := spans.spans
	slices.SortFunc(s, func(a, b span) int { return a.start.Compare(b.start) })
	for i := 13; i < len(s); i++ {
		if s[i].start.Before(s[i-1].end) {
			t.Errorf("re-measurement %d->%d began before %d->%d ended", s[i].src, s[i].dst, s[i-1].src, s[i-1].dst)
		}
	}
	if len(s) <= 12 {
		t.Errorf("%d measurements: no re-measurement", len(s))
	}
}

// TestRecheckSlowPair: pair 1->2 is 50% worse every time (+-3% noise): its
// re-measurement confirms it in both metrics, and the exit status is 1.
func TestRecheckSlowPair(t *testing.T) {
	w := newWorld(t, 4)
	for r, m := range w.measurers {
		m.factor = noisy(uint64(r), 3, nil)
	}
	w.measurers[1].factor = noisy(1, 3, func(peer, n int) float64 {
		if peer == 2 {
			return 1.5
		}
		return 1
	})
	doc := runRecheck(t, w)
	checkRechecks(t, doc)
	outs := doc.Outliers()
	if len(doc.Suspects) != 2 || len(outs) != 2 {
		t.Fatalf("outliers %+v of suspects %+v", outs, doc.Suspects)
	}
	for _, o := range outs {
		r := o.Recheck
		if o.Src.Rank != 1 || o.Dst.Rank != 2 || r.Pairs != 12 {
			t.Errorf("%s %d->%d after %d pairs", o.Metric, o.Src.Rank, o.Dst.Rank, r.Pairs)
		}
		// 1.5x, with this fake's few percent from pair to pair.
		if est := r.EstimatePct; o.Metric == "lat.p50_us" && !(est > 40 && est < 60) || o.Metric == "bw_gbps" && !(est > -40 && est < -27) {
			t.Errorf("%s: change %+.1f%% [%+.1f%%, %+.1f%%]", o.Metric, est, r.LoPct, r.HiPct)
		}
	}
	if ExitStatus(doc) != 1 {
		t.Error("exit status 0 with a confirmed outlier")
	}
	text := findings(t, doc)
	for _, want := range []string{": 2 outliers\n  outlier: bw_gbps: rank 1 (host-1 rxe0 port 1) -> rank 2 (host-2 rxe0 port 1): ",
		"\n  outlier: lat.p50_us: rank 1 (host-1 rxe0 port 1) -> rank 2 (host-2 rxe0 port 1): ",
		"hosts by the failed or outlying pairs they are in:\n  rank 1 (host-1 rxe0 port 1): 1\n  rank 2 (host-2 rxe0 port 1): 1\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("findings without %q:\n%s", want, text)
		}
	}
}

// TestRecheckUnclean: pair 1->2 is slow and its counters see every run
// of it unclean, in the sweep and re-measured: its matrix cell is marked,
// the findings count it, and its re-measurement says how many of its runs
// were not clean; its reference's were clean, and bandwidth (workload
// "bw_gbps" here) has no caveat.
func TestRecheckUnclean(t *testing.T) {
	w := newWorld(t, 4)
	for r, m := range w.measurers {
		m.factor = noisy(uint64(r), 3, nil)
	}
	w.measurers[1].factor = noisy(1, 3, func(peer, n int) float64 {
		if peer == 2 {
			return 1.5
		}
		return 1
	})
	w.measurers[1].unclean = map[int]bool{2: true}
	doc := runRecheck(t, w)
	if m := doc.Matrix("lat.p50_us"); m.Caveat(1, 2) != CaveatUnclean || m.Caveat(2, 1) != 0 {
		t.Errorf("lat matrix caveats: 1->2 %b, 2->1 %b", m.Caveat(1, 2), m.Caveat(2, 1))
	}
	for _, s := range doc.Suspects {
		r := s.Recheck
		want := 0
		if s.Metric == "lat.p50_us" {
			want = r.Pairs
		}
		if r.SuspectUnclean != want || r.ReferenceUnclean != 0 || (want > 0) != (r.Counters == fakeUnclean) {
			t.Errorf("%s: suspect unclean %d of %d (%q), reference %d; want %d, 0", s.Metric, r.SuspectUnclean, r.Pairs, r.Counters, r.ReferenceUnclean, want)
		}
	}
	text := findings(t, doc)
	for _, want := range []string{
		"; 12 of 12 of the suspect's re-measurements not clean (counters: " + fakeUnclean + ")\n",
		"1 of 12 lat pairs " + display.UncleanNote + "\n  rank 1 (host-1 rxe0 port 1) -> rank 2 (host-2 rxe0 port 1): counters: " + fakeUnclean + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("findings without %q:\n%s", want, text)
		}
	}
}

// TestRecheckSmallSlowdown: pair 1->2 is 5% worse, a quarter of the
// threshold, and was 5x worse in the sweep: its re-measurement never
// confirms it (the rule fails a pair only when the estimate is at least
// half the threshold), whatever the noise.
func TestRecheckSmallSlowdown(t *testing.T) {
	for seed := range uint64(3) {
		w := newWorld(t, 4)
		for r, m := range w.measurers {
			m.factor = noisy(seed*10+uint64(r), 3, nil)
		}
		w.measurers[1].factor = noisy(seed*10+1, 3, func(peer, n int) float64 {
			switch {
			case peer == 2 && n == 1:
				return 5
			case peer == 2:
				return 1.05
			}
			return 1
		})
		doc := runRecheck(t, w)
		checkRechecks(t, doc)
		if len(doc.Suspects) != 2 {
			t.Fatalf("seed %d: suspects %+v", seed, doc.Suspects)
		}
		for _, s := range doc.Suspects {
			if s.Recheck.Decision == compare.Fail {
				t.Errorf("seed %d: %s 5%% worse confirmed: %+v", seed, s.Metric, s.Recheck)
			}
		}
		if ExitStatus(doc) != 0 {
			t.Errorf("seed %d: exit status 1", seed)
		}
	}
}

// swinging is a factor for fakeMeasurer: pair 1->2 (measured by rank 1)
// 1.6x on odd measurements, 0.7x on even ones, every other pair alike.
func swinging(peer, n int) float64 {
	switch {
	case peer == 2 && n%2 == 0:
		return 0.7
	case peer == 2:
		return 1.6
	}
	return 1
}

// TestRecheckUndecided: pair 1->2 swings between 0.7x and 1.6x from one
// measurement to the next: after the most pairs it is undecided, neither
// an outlier nor cleared, and the exit status is 0.
func TestRecheckUndecided(t *testing.T) {
	w := newWorld(t, 4)
	w.cfg.Recheck = RecheckOptions{LookEvery: 4, MaxPairs: 10}
	w.measurers[1].factor = swinging
	var progress strings.Builder
	w.cfg.Progress = &progress
	doc := runRecheck(t, w)
	checkRechecks(t, doc)
	if c := doc.Recheck; c.LookEvery != 4 || c.MaxPairs != 10 || c.Looks != 3 || c.Alpha != DefaultRecheckAlpha {
		t.Errorf("settings %+v", c)
	}
	if len(doc.Suspects) != 2 {
		t.Fatalf("suspects %+v", doc.Suspects)
	}
	for _, s := range doc.Suspects {
		if r := s.Recheck; r.Decision != compare.Undecided || r.Pairs != 10 || r.Looks != 3 || s.Finding() != "undecided" {
			t.Errorf("%s: %s after %d pairs, %d looks", s.Metric, s.Finding(), r.Pairs, r.Looks)
		}
	}
	if ExitStatus(doc) != 0 {
		t.Error("exit status 1 for undecided suspects")
	}
	text := findings(t, doc)
	if !strings.Contains(text, "at most 10 times and 5m0s in all: 0 outliers, 2 undecided\n") || !strings.Contains(text, "  undecided: bw_gbps: rank 1 (host-1 rxe0 port 1) -> rank 2 (host-2 rxe0 port 1): ") ||
		!strings.Contains(text, "re-measured 10 times beside ") {
		t.Errorf("findings:\n%s", text)
	}
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	if len(lines) != 6+1+2 || lines[6] != "re-measuring 2 suspects, each alternately with its reference pair, one pair at a time, at most 10 times each and 5m0s in all" ||
		!strings.HasPrefix(lines[7], "suspect 1 of 2: bw_gbps 1->2: re-measured 10 times beside ") || !strings.Contains(lines[8], ": undecided; ") {
		t.Errorf("progress:\n%s", progress.String())
	}
}

// TestRecheckTimeUp: the same swinging pair, each measurement slowed to
// 40 ms and the re-measurement given 1s in all: each of the two suspects
// gets its share (the first half, the second what is left), stops before
// a pair that would overrun it, undecided with its share said, and the
// whole re-measurement ends near the bound, not after the most pairs.
// The stop is a forecast from the pairs so far, so a pair slower than
// all before it (a loaded CI runner) may pass the share by its excess:
// slack allows 20 ms of that, half of one sleep.
func TestRecheckTimeUp(t *testing.T) {
	w := newWorld(t, 4)
	w.cfg.Recheck = RecheckOptions{LookEvery: 4, MaxPairs: 100, Time: time.Second}
	w.measurers[1].factor = swinging
	var rechecking atomic.Bool
	for _, m := range w.measurers {
		m.hook = func(_ context.Context, _ int, role string, _ int) error {
			if role == roleMeasure && rechecking.Load() {
				time.Sleep(40 * time.Millisecond)
			}
			return nil
		}
	}
	var progress strings.Builder
	w.cfg.Progress = progressHook{&progress, func(line string) {
		if strings.HasPrefix(line, "re-measuring ") {
			rechecking.Store(true)
		}
	}}
	const slack = 20 * time.Millisecond
	began := time.Now()
	doc := runRecheck(t, w)
	checkRechecks(t, doc)
	if c := doc.Recheck; c.TimeNS != time.Second.Nanoseconds() {
		t.Errorf("settings %+v", c)
	}
	var spent time.Duration
	for i := range doc.Suspects {
		s := &doc.Suspects[i]
		r := s.Recheck
		spent += time.Duration(r.ElapsedNS)
		if !r.TimeUp || r.Decision != compare.Undecided || r.Pairs < 2 || r.Pairs >= 100 || time.Duration(r.ElapsedNS) > time.Duration(r.ShareNS)+slack {
			t.Errorf("suspect %d: time up %v, %s after %d pairs in %s of a %s share", i+1, r.TimeUp, s.Finding(), r.Pairs,
				time.Duration(r.ElapsedNS), time.Duration(r.ShareNS))
		}
		if !strings.Contains(recheckText(s), " share of the time ran out") {
			t.Errorf("suspect %d: %s", i+1, recheckText(s))
		}
	}
	if spent > time.Second+slack {
		t.Errorf("re-measured for %s of a 1s bound (the whole run %s)", spent, time.Since(began))
	}
	if text := findings(t, doc); !strings.Contains(text, "at most 100 times and 1s in all: 0 outliers, 2 undecided\n") {
		t.Errorf("findings:\n%s", text)
	}
}

// progressHook is a progress writer that also calls line with each write.
type progressHook struct {
	w    io.Writer
	line func(string)
}

func (p progressHook) Write(b []byte) (int, error) {
	p.line(string(b))
	return p.w.Write(b)
}

// TestRecheckPairFails: the suspect's third re-measurement fails: its
// re-measurement stops there with the error and a last look at the pairs
// so far; the other suspect is re-measured as usual. A failed
// re-measurement makes the exit status 1.
func TestRecheckPairFails(t *testing.T) {
	w := newWorld(t, 4)
	w.cfg.Outliers.Metrics = []string{"lat.p50_us"}
	w.measurers[1].factor = transient(2)
	measured := 0
	w.measurers[1].hook = func(_ context.Context, _ int, role string, peer int) error {
		if role == roleMeasure && peer == 2 {
			if measured++; measured == 4 { // the sweep's, then 3 re-measurements
				return errors.New("cable cut")
			}
		}
		return nil
	}
	doc := runRecheck(t, w)
	if len(doc.Suspects) != 1 {
		t.Fatalf("suspects %+v", doc.Suspects)
	}
	s := doc.Suspects[0]
	if r := s.Recheck; r.Pairs != 2 || r.Looks != 1 || r.Decision != compare.Undecided ||
		!strings.HasPrefix(r.Error, "1->2: measure on rank 1 (host-1): cable cut; serve on rank 2 (host-2): stopped serving: the measuring side had failed") {
		t.Errorf("recheck %+v", r)
	}
	if ExitStatus(doc) != 1 {
		t.Error("exit status 0 with a failed re-measurement")
	}
	if text := findings(t, doc); !strings.Contains(text, "re-measured 2 times beside ") || !strings.Contains(text, ", then 1->2: measure on rank 1 (host-1): cable cut") {
		t.Errorf("findings:\n%s", text)
	}
}

// TestRecheckOptionsChecked: rank 0 refuses bad options before measuring
// and tells the others.
func TestRecheckOptionsChecked(t *testing.T) {
	for _, c := range []struct {
		cfg  func(*SweepConfig)
		want string
	}{
		{func(c *SweepConfig) { c.Recheck.MaxPairs = 3 }, "re-measurement: at most 3 pairs a suspect: want 6 (a look) to 1000"},
		{func(c *SweepConfig) { c.Recheck.LookEvery = 1 }, "re-measurement: 1 pairs between looks: want at least 2"},
		{func(c *SweepConfig) { c.Recheck.Time = time.Millisecond }, "re-measurement: at most 1ms in all: want at least 1s"},
		{func(c *SweepConfig) { c.Recheck.Alpha = 0.7 }, "re-measurement: false-alarm rate 0.7: want a value between 0 and 0.5"},
		{func(c *SweepConfig) { c.Outliers.ThresholdPct = -5 }, "outlier threshold -5%: want a percentage above 0 such as 20"},
	} {
		w := newWorld(t, 2)
		c.cfg(&w.cfg)
		doc, errs := w.run(t)
		if doc != nil || errs[0] == nil || errs[0].Error() != "sweep: "+c.want {
			t.Errorf("rank 0: %v, want %q", errs[0], c.want)
		}
		if errs[1] == nil || !strings.HasSuffix(errs[1].Error(), c.want) {
			t.Errorf("rank 1: %v", errs[1])
		}
	}
}
