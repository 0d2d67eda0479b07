package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// fakeRunner gives each side's runs a log-normal noise around a point's
// base value, the candidate slower by factor; it advances a fake clock by
// secs per run and can fail at run failAt.
type fakeRunner struct {
	mu     sync.Mutex
	rng    *rand.Rand
	factor float64
	noise  float64
	clock  *fakeClock
	secs   time.Duration
	cold   time.Duration // the time of each side's first run, when set
	runs   int
	failAt int
	order  []string
}

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func (f *fakeRunner) Run(ctx context.Context, s *Side, p Point) (Measurement, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs++
	f.order = append(f.order, s.Name)
	if f.failAt > 0 && f.runs == f.failAt {
		return Measurement{}, errors.New("the run exited 1")
	}
	if f.cold > 0 && f.runs <= 2 {
		f.clock.t = f.clock.t.Add(f.cold)
	} else {
		f.clock.t = f.clock.t.Add(f.secs)
	}
	v := 10 * math.Exp(f.noise*f.rng.NormFloat64())
	if s.Name == "candidate" {
		if p.Latency {
			v *= f.factor
		} else {
			v /= f.factor
		}
	}
	clean := f.runs%3 != 0
	// Each side's rdma-core: a TCP-like run names only a version.
	core := map[string]string{"base": "44.0", "candidate": "50.0"}[s.Name]
	if p.Workload != "tcp_lat" {
		core += ", provider /" + s.Name + "/librxe-rdmav34.so"
	}
	dev := ""
	if p.Workload != "tcp_lat" {
		dev = "rxe0 (the only RDMA device)"
	}
	return Measurement{Value: v, Seconds: f.secs.Seconds(), Clean: &clean, RDMACore: core, Device: dev}, nil
}

func testConfig(t *testing.T, points ...string) *Config {
	t.Helper()
	th, err := compare.ParseThresholds("lat.p50>+5%,bw<-5%")
	if err != nil {
		t.Fatal(err)
	}
	c := &Config{Base: Side{Name: "base", Bin: "a"}, Candidate: Side{Name: "candidate", Bin: "b"},
		Target: []string{"--loopback"}, LatencyIters: 100, BandwidthSeconds: 0.1, Thresholds: th,
		Alpha: 0.01, FirstLook: 10, LookGrowth: 1.5, MaxPairs: 40, Budget: time.Hour, Method: Paired}
	for _, s := range points {
		p, err := ParsePoint(s)
		if err != nil {
			t.Fatal(err)
		}
		c.Points = append(c.Points, p)
	}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	return c
}

func runFake(t *testing.T, c *Config, f *fakeRunner) (*Document, error, int) {
	t.Helper()
	return runFakeProgress(t, c, f, nil)
}

// runFakeProgress is runFake with the gate's progress written to w.
func runFakeProgress(t *testing.T, c *Config, f *fakeRunner, w io.Writer) (*Document, error, int) {
	t.Helper()
	f.clock = &fakeClock{t: time.Unix(0, 0)}
	saves := 0
	g := &Gate{Config: c, Runner: f, Now: f.clock.now, Progress: w, Save: func(*Document) error { saves++; return nil }}
	d, err := g.Run(context.Background(), &Document{})
	return d, err, saves
}

func TestGateAA(t *testing.T) {
	c := testConfig(t, "write_lat:64", "write_bw:4K")
	d, err, saves := runFake(t, c, &fakeRunner{rng: rand.New(rand.NewPCG(1, 1)), factor: 1, noise: 0.01, secs: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != StatusComplete || d.ExitCode != ExitPass || d.Outcome != "pass" {
		t.Fatalf("A/A gate: status %s, outcome %s, exit %d; want complete, pass, 0\n%s", d.Status, d.Outcome, d.ExitCode, Summary(d))
	}
	for _, r := range d.Rows {
		// Two rows, a share of 0.005 each, spent over a horizon of 40
		// pairs: 0.005 x 10/50 = 0.001 at ten pairs, which they can reach
		// (the signed-rank tail at n=10 is 1/1024).
		if r.Decision != compare.Pass || r.Pairs != 10 || len(r.Looks) != 1 {
			t.Errorf("%s: %s after %d pairs, %d looks; want pass at the first look (10 pairs)", r.Label(), r.Decision, r.Pairs, len(r.Looks))
		}
		for i, bf := range r.BaseFirst {
			if bf != (i%2 == 0) {
				t.Fatalf("%s: pair %d base first %v: want A B, B A, ...", r.Label(), i+1, bf)
			}
		}
		if r.Unclean == 0 {
			t.Errorf("%s: no unclean run counted", r.Label())
		}
		// Each run's verdict is kept with its pair; they add up to the count.
		unclean := 0
		for _, c := range slices.Concat(r.BaseClean, r.CandidateClean) {
			if c != nil && !*c {
				unclean++
			}
		}
		if len(r.BaseClean) != r.Pairs || len(r.CandidateClean) != r.Pairs || len(r.PairAtSeconds) != r.Pairs || unclean != r.Unclean {
			t.Errorf("%s: %d, %d verdicts and %d times for %d pairs, %d unclean of %d counted", r.Label(),
				len(r.BaseClean), len(r.CandidateClean), len(r.PairAtSeconds), r.Pairs, unclean, r.Unclean)
		}
		if !slices.IsSorted(r.PairAtSeconds) || r.PairAtSeconds[0] <= 0 {
			t.Errorf("%s: pairs began at %v s, want increasing times after the warm-up", r.Label(), r.PairAtSeconds)
		}
	}
	if saves < 10 {
		t.Errorf("saved %d times, want once per round at least", saves)
	}
	if d.Base.RDMACore != "44.0, provider /base/librxe-rdmav34.so" || d.Candidate.RDMACore != "50.0, provider /candidate/librxe-rdmav34.so" {
		t.Errorf("sides' rdma-core %q and %q; want each side's own", d.Base.RDMACore, d.Candidate.RDMACore)
	}
	if d.Base.Device != "rxe0 (the only RDMA device)" || d.Candidate.Device != d.Base.Device {
		t.Errorf("sides' devices %q and %q; want rxe0 and why", d.Base.Device, d.Candidate.Device)
	}
	if h := sideText(d.Base); !strings.Contains(h, "[device rxe0 (the only RDMA device)] [rdma-core 44.0, provider /base/librxe-rdmav34.so]") {
		t.Errorf("the header's base side %q lacks its device and rdma-core", h)
	}
	if d.Runs != 2*2+2*2*10 || d.RunSeconds != float64(d.Runs) {
		t.Errorf("runs %d in %g s, want %d in as many seconds", d.Runs, d.RunSeconds, 2*2+2*2*10)
	}
}

func TestGateCatchesSlowdown(t *testing.T) {
	c := testConfig(t, "write_lat:64", "write_bw:4K")
	d, err, _ := runFake(t, c, &fakeRunner{rng: rand.New(rand.NewPCG(2, 2)), factor: 1.05, noise: 0.01, secs: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if d.ExitCode != ExitFail {
		t.Fatalf("5%% slower: exit %d, want %d\n%s", d.ExitCode, ExitFail, Summary(d))
	}
	for _, r := range d.Rows {
		if r.Decision != compare.Fail {
			t.Errorf("%s: %s, want fail", r.Label(), r.Decision)
		}
	}
	if s := Summary(d); !strings.HasPrefix(s, "gate fail (exit 1): write_lat 64 B lat.p50 +") {
		t.Errorf("summary %q", s)
	}
}

func TestGateUndecidedWithinBudget(t *testing.T) {
	c := testConfig(t, "write_lat:64")
	c.Budget = 50 * time.Second // warm-up 2 s, 2 s a pair: the first look at 10 pairs fits, not 20
	d, err, _ := runFake(t, c, &fakeRunner{rng: rand.New(rand.NewPCG(3, 3)), factor: 1, noise: 0.2, secs: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r := d.Rows[0]
	if d.ExitCode != ExitUndecided || r.Decision != compare.Undecided || !strings.Contains(d.StopReason, "budget") {
		t.Fatalf("noisy, short budget: exit %d, %s, stopped by %q; want undecided by the budget", d.ExitCode, r.Decision, d.StopReason)
	}
	last := r.Looks[len(r.Looks)-1]
	if !last.Final || math.Abs(r.AlphaSpent-c.Alpha) > 1e-12 || last.Confidence >= 1-2*last.Alpha+1e-12 {
		t.Fatalf("the last look: %+v, %g spent; want it final, spending the rest of the share %g", last, r.AlphaSpent, c.Alpha)
	}
	if !(r.DetectablePct > 0) {
		t.Errorf("undecided row: detectable %g, want a positive figure", r.DetectablePct)
	}
	if n := Notes(r, c.Method); len(n) == 0 || !strings.Contains(n[0], "not \"no regression\"") {
		t.Errorf("notes %q", n)
	}
}

func TestGateBudgetTooShort(t *testing.T) {
	c := testConfig(t, "write_lat:64")
	c.Budget = 10 * time.Second
	d, err, _ := runFake(t, c, &fakeRunner{rng: rand.New(rand.NewPCG(4, 4)), factor: 1, noise: 0.01, secs: time.Second})
	var be *BudgetError
	if !errors.As(err, &be) || d != nil {
		t.Fatalf("budget of 10 s for 10 pairs of 2 s: %v, doc %v; want a BudgetError and no document", err, d)
	}
}

// TestGateBudgetSlowWarmUp: warm-up runs (which start the workers) of
// 30 s say 10 pairs of 2 s runs cannot fit in 2 minutes; the first
// round's own time says they can, and the gate goes on to a decision.
func TestGateBudgetSlowWarmUp(t *testing.T) {
	c := testConfig(t, "write_lat:64")
	c.Budget = 2 * time.Minute
	var progress strings.Builder
	d, err, _ := runFakeProgress(t, c, &fakeRunner{rng: rand.New(rand.NewPCG(4, 4)), factor: 1, noise: 0.01, secs: time.Second, cold: 30 * time.Second}, &progress)
	if err != nil || d == nil || len(d.Rows[0].Base) < c.decisivePairs() {
		t.Fatalf("slow warm-up, fast pairs: %v, doc %v; want a gate that measures", err, d)
	}
	if !strings.Contains(progress.String(), "from the warm-up's runs; give at least") || !strings.Contains(progress.String(), "judging again after the first round") {
		t.Errorf("progress does not say the warm-up's estimate was judged again:\n%s", progress.String())
	}
}

func TestGateRunFailsPartial(t *testing.T) {
	c := testConfig(t, "write_lat:64", "write_bw:4K")
	d, err, saves := runFake(t, c, &fakeRunner{rng: rand.New(rand.NewPCG(5, 5)), factor: 1, noise: 0.01, secs: time.Second, failAt: 15})
	if err == nil || d == nil {
		t.Fatalf("a failing run: err %v, doc %v", err, d)
	}
	if d.Status != StatusPartial || d.ExitCode != ExitMeasurement || !strings.Contains(d.Reason, "exited 1") || saves == 0 {
		t.Fatalf("partial: status %s exit %d reason %q saves %d", d.Status, d.ExitCode, d.Reason, saves)
	}
	if len(d.Rows[0].Base) == 0 {
		t.Fatal("the pairs measured before the failure are lost")
	}
}

func TestGateInterrupted(t *testing.T) {
	c := testConfig(t, "write_lat:64")
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeRunner{rng: rand.New(rand.NewPCG(6, 6)), factor: 1, noise: 0.01, secs: time.Second, clock: &fakeClock{}}
	r := runnerFunc(func(ctx context.Context, s *Side, p Point) (Measurement, error) {
		if f.runs == 7 {
			cancel()
			return Measurement{}, context.Canceled
		}
		return f.Run(ctx, s, p)
	})
	g := &Gate{Config: c, Runner: r, Now: f.clock.now}
	d, err := g.Run(ctx, &Document{})
	if err == nil || d == nil || d.Status != StatusPartial {
		t.Fatalf("interrupted: %v, %+v", err, d)
	}
}

type runnerFunc func(ctx context.Context, s *Side, p Point) (Measurement, error)

func (f runnerFunc) Run(ctx context.Context, s *Side, p Point) (Measurement, error) {
	return f(ctx, s, p)
}

func TestParsePoint(t *testing.T) {
	p, err := ParsePoint("write_bw:4K")
	if err != nil || p.Workload != "write_bw" || p.SizeBytes != 4096 || p.Latency || p.String() != "write_bw 4 KiB" {
		t.Fatalf("write_bw:4K: %+v, %v", p, err)
	}
	for _, bad := range []string{"write_lat", "write_lat:", ":64", "nope:64", "write_lat:lots"} {
		if _, err := ParsePoint(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestConfigCheck(t *testing.T) {
	for name, change := range map[string]func(*Config){
		"no points":     func(c *Config) { c.Points = nil },
		"twice":         func(c *Config) { c.Points = append(c.Points, c.Points[0]) },
		"no threshold":  func(c *Config) { c.Thresholds = c.Thresholds[:1]; c.Points[0].Latency = false },
		"first look 1":  func(c *Config) { c.FirstLook = 1 },
		"growth":        func(c *Config) { c.LookGrowth = 1 },
		"max < look":    func(c *Config) { c.MaxPairs = 5 },
		"budget":        func(c *Config) { c.Budget = 0 },
		"method":        func(c *Config) { c.Method = "bayes" },
		"alpha":         func(c *Config) { c.Alpha = 0 },
		"iterations":    func(c *Config) { c.LatencyIters = 0 },
		"duration":      func(c *Config) { c.BandwidthSeconds = 0 },
		"too many":      func(c *Config) { c.MaxPairs = 5000 },
		"no base bin":   func(c *Config) { c.Base.Bin = "" },
		"no cand bin":   func(c *Config) { c.Candidate.Bin = "" },
		"threshold set": func(c *Config) { c.Thresholds = nil },
	} {
		c := testConfig(t, "write_lat:64")
		change(c)
		if err := c.Check(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestSchedule: looks at FirstLook, grown by LookGrowth, and MaxPairs;
// a look that cannot bound an interval at what it may spend is not taken.
func TestSchedule(t *testing.T) {
	c := testConfig(t, DefaultPoints...)
	if got := c.Schedule(); !slices.Equal(got, []int{10, 15, 23, 35, 40}) {
		t.Fatalf("schedule %v", got)
	}
	c.MaxPairs = 1000
	if got := c.Schedule(); len(got) != 13 || got[len(got)-1] != 1000 {
		t.Errorf("schedule to 1000 by 1.5: %v", got)
	}
	// Paired: 2^-10 is the smallest p-value at ten pairs.
	if c.CanDecide(10, 0.0009) || !c.CanDecide(10, 0.001) || c.CanDecide(10, 0) {
		t.Errorf("paired CanDecide at 10 pairs wrong")
	}
	c.Method = Unpaired // 1/C(20,10) = 5.4e-6
	if c.CanDecide(10, 5e-6) || !c.CanDecide(10, 6e-6) {
		t.Errorf("unpaired CanDecide at 10 pairs wrong")
	}
}

// TestGateSpendsBudget: a row that cannot decide is measured for as long
// as the budget allows, far past the old 40 pairs, with its looks on the
// schedule and the last one final.
func TestGateSpendsBudget(t *testing.T) {
	c := testConfig(t, "write_lat:64")
	c.MaxPairs, c.Budget = 1000, 10*time.Minute // 2 s a pair: about 300 pairs
	d, err, _ := runFake(t, c, &fakeRunner{rng: rand.New(rand.NewPCG(8, 8)), factor: 1.04, noise: 0.3, secs: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r := d.Rows[0]
	if r.Pairs < 280 || d.Seconds > c.Budget.Seconds() || !strings.Contains(d.StopReason, "budget") {
		t.Fatalf("%d pairs in %.0f s of %v, stopped by %q; want the budget spent", r.Pairs, d.Seconds, c.Budget, d.StopReason)
	}
	var pairs []int
	for _, l := range r.Looks {
		pairs = append(pairs, l.Pairs)
	}
	// At ten pairs a 0.01 x 10/(10+300) error is below 2^-10: no look.
	if !slices.Equal(pairs[:len(pairs)-1], []int{15, 23, 35, 53, 80, 120, 180, 270}) || !r.Looks[len(r.Looks)-1].Final {
		t.Errorf("looks at %v; want the schedule from 15, then a final look", pairs)
	}
	if math.Abs(r.AlphaSpent-c.Alpha) > 1e-12 || d.Settings.Horizon < 250 {
		t.Errorf("spent %g of %g, horizon %d", r.AlphaSpent, c.Alpha, d.Settings.Horizon)
	}
	if r.PairP10Pct >= 0 || r.PairP90Pct <= 0 || !(r.ReachPct > 0) {
		t.Errorf("spread %g..%g, reach %g", r.PairP10Pct, r.PairP90Pct, r.ReachPct)
	}
}

// TestDocumentRoundTrip: the saved document reads back as written,
// unbounded interval ends (null in JSON) included.
func TestDocumentRoundTrip(t *testing.T) {
	c := testConfig(t, "write_lat:64", "write_bw:4K")
	c.Budget = 50 * time.Second
	d, err, _ := runFake(t, c, &fakeRunner{rng: rand.New(rand.NewPCG(7, 7)), factor: 1, noise: 0.3, secs: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	d.Rows[1].LoPct, d.Rows[1].Looks[0].HiPct = compare.LoBound(math.Inf(-1)), compare.HiBound(math.Inf(1)) // as too few pairs give
	b, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	var back Document
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, err := back.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, b2) {
		t.Fatalf("the document does not read back as written:\n%s\n---\n%s", b, b2)
	}
	if !math.IsInf(float64(back.Rows[1].LoPct), -1) || !math.IsInf(float64(back.Rows[1].Looks[0].HiPct), 1) {
		t.Fatalf("unbounded ends read back as %g and %g", back.Rows[1].LoPct, back.Rows[1].Looks[0].HiPct)
	}
	if back.Rows[0].Decision != d.Rows[0].Decision || len(back.Rows[0].Base) != len(d.Rows[0].Base) {
		t.Fatal("rows differ")
	}
}

func TestRDMACoreOf(t *testing.T) {
	doc := &document.Document{}
	doc.Host.RDMACore = "50.0"
	if got := RDMACoreOf(doc); got != "50.0" {
		t.Errorf("no device: %q", got)
	}
	doc.Device = &document.Device{Provider: "/opt/rdma-core/lib/librxe-rdmav34.so"}
	if got := RDMACoreOf(doc); got != "50.0, provider /opt/rdma-core/lib/librxe-rdmav34.so" {
		t.Errorf("with a provider: %q", got)
	}
	doc.Host.RDMACore = ""
	if got := RDMACoreOf(doc); got != "unknown version, provider /opt/rdma-core/lib/librxe-rdmav34.so" {
		t.Errorf("no version: %q", got)
	}
}
