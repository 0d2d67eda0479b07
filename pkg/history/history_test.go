package history

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"
	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

var detector = Detector{Alpha: 0.01, Permutations: 499, MinSegment: 2, Seed: 1}

// noisy is n log-normal values around 1 with sd sigma, times step from
// index at on.
func noisy(rng *rand.Rand, n, at int, step, sigma float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = sigma * rng.NormFloat64()
		if i >= at {
			x[i] += math.Log(step)
		}
	}
	return x
}

// TestDetectorFindsStep: a 5% step in 1% noise is found where it is,
// three sessions after it too.
func TestDetectorFindsStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, after := range []int{3, 10} {
		x := noisy(rng, 30+after, 30, 1.05, 0.01)
		s, _, err := detector.Find(context.Background(), x)
		if err != nil || len(s) != 1 || s[0].Index != 30 || s[0].P > 0.01 {
			t.Errorf("%d sessions after a 5%% step: %+v, %v; want one step at 30", after, s, err)
		}
	}
	x := append(noisy(rng, 20, 99, 1, 0.01), noisy(rng, 20, 0, 1.08, 0.01)...)
	x = append(x, noisy(rng, 20, 0, 1.0, 0.01)...)
	if s, _, err := detector.Find(context.Background(), x); err != nil || len(s) != 2 || s[0].Index != 20 || s[1].Index != 40 {
		t.Errorf("a step up and back: %+v, %v; want steps at 20 and 40", s, err)
	}
}

// TestDetectorFalseChanges: series without a step show one about Alpha
// of the time (a test per series ends the search): at most 6 of 200 at
// Alpha 0.01 (2 expected).
func TestDetectorFalseChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d := detector
	false_ := 0
	for i := range 200 {
		d.Seed = uint64(i)
		s, _, err := d.Find(context.Background(), noisy(rng, 30, 99, 1, 0.05))
		if err != nil {
			t.Fatal(err)
		}
		false_ += len(s)
	}
	if false_ > 6 {
		t.Errorf("%d false changes in 200 steady series of 30 sessions, want about 2", false_)
	}
}

// TestDetectorStops: a cancelled context ends the permutations.
func TestDetectorStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := detector
	d.Permutations = 100000
	if _, _, err := d.Find(ctx, noisy(rand.New(rand.NewPCG(5, 6)), 200, 100, 1.2, 0.01)); err == nil {
		t.Error("a cancelled history ran on")
	}
}

// docsOf makes a document a day for each value: write_lat 64 B, five runs
// around it.
func docsOf(vals []float64) []*document.Document {
	var out []*document.Document
	t0 := time.Date(2026, 10, 1, 2, 0, 0, 0, time.UTC)
	for i, v := range vals {
		start := t0.Add(time.Duration(i) * 24 * time.Hour)
		r := &document.Result{Workload: "write_lat", Transport: "RC", Completion: "poll", Kind: document.KindLatency, SizeBytes: 64,
			Figures: document.Figures{Status: document.StatusOK}, RunsRecorded: true}
		for j := range 5 {
			p50 := v * (1 + 0.002*float64(j-2))
			r.Runs = append(r.Runs, &document.Run{Run: j + 1, StartedAt: start.Add(time.Duration(j) * time.Second),
				Figures: document.Figures{Status: document.StatusOK, LatencyUS: &document.Latency{P50: &p50}}})
		}
		out = append(out, &document.Document{Path: "d" + string(rune('a'+i%26)) + ".json", StartedAt: start,
			Host: document.Host{Hostname: "node1"}, Results: []*document.Result{r}})
	}
	return out
}

func options(t *testing.T) Options {
	t.Helper()
	th, err := compare.ParseThresholds("lat.p50>+5%")
	if err != nil {
		t.Fatal(err)
	}
	return Options{Detector: detector, Thresholds: th, Recent: 5, SessionGap: time.Minute, Now: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func series(rng *rand.Rand, n, at int, step float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 30 * math.Exp(0.01*rng.NormFloat64())
		if i >= at {
			v[i] *= step
		}
	}
	return v
}

// TestAnalyze: a steady history passes; a 10% regression in its newest
// sessions fails, named, in the table and the JSON; an old one is
// reported, not failed; an improvement never fails.
func TestAnalyze(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	o := options(t)
	cases := []struct {
		name  string
		vals  []float64
		code  int
		steps int
		want  string
	}{
		{"steady", series(rng, 25, 99, 1), ExitSteady, 0, "history steady (exit 0)"},
		{"new regression", series(rng, 25, 22, 1.10), ExitRegression, 1, "a regression beyond lat.p50>+5%, in the newest sessions: fails"},
		{"old regression", series(rng, 25, 10, 1.10), ExitSteady, 1, "older than the newest sessions: reported"},
		{"improvement", series(rng, 25, 22, 0.9), ExitSteady, 1, "an improvement"},
	}
	for _, c := range cases {
		r, err := Analyze(context.Background(), docsOf(c.vals), o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var b bytes.Buffer
		if err := Write(&b, r, "table"); err != nil {
			t.Fatal(err)
		}
		if r.ExitCode != c.code || len(r.Series) != 1 || len(r.Series[0].Steps) != c.steps || !strings.Contains(b.String(), c.want) {
			t.Errorf("%s: exit %d, %d steps; want %d, %d and %q:\n%s", c.name, r.ExitCode, len(r.Series[0].Steps), c.code, c.steps, c.want, b.String())
		}
		b.Reset()
		if err := Write(&b, r, "json"); err != nil || !strings.Contains(b.String(), `"outcome"`) {
			t.Errorf("%s: json: %v", c.name, err)
		}
		if ch, err := Charts(r, results.CaptionOf(docsOf(c.vals))); err != nil || len(ch) != 1 {
			t.Errorf("%s: charts %d, %v", c.name, len(ch), err)
		}
	}
}

// TestAnalyzeNoVerdict: three sessions cannot be looked at (exit 3, not
// steady); one session, a clock in the future and two sessions of one
// host at once are bad input.
func TestAnalyzeNoVerdict(t *testing.T) {
	o := options(t)
	r, err := Analyze(context.Background(), docsOf([]float64{30, 30, 31}), o)
	if err != nil || r.ExitCode != ExitTooFew || r.Series[0].Outcome != OutcomeTooFew || !strings.Contains(r.Summary, `not "steady"`) {
		t.Errorf("three sessions: %+v, %v; want exit 3", r, err)
	}
	bad := []struct {
		name string
		docs []*document.Document
		want string
	}{
		{"one session", docsOf([]float64{30}), "the documents hold one session"},
		{"future", func() []*document.Document {
			d := docsOf([]float64{30, 31, 30, 31})
			d[3].StartedAt = o.Now.Add(time.Hour)
			return d
		}(), "is in the future"},
		{"overlap", func() []*document.Document {
			d := docsOf([]float64{30, 31, 30, 31})
			d[2].StartedAt = d[1].StartedAt.Add(-time.Hour)
			for _, run := range d[2].Results[0].Runs {
				run.StartedAt = d[1].StartedAt.Add(2 * time.Second)
			}
			return d
		}(), "overlap in time"},
		{"no documents", nil, "no documents"},
	}
	for _, c := range bad {
		if _, err := Analyze(context.Background(), c.docs, o); err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want bad input saying %q", c.name, err, c.want)
		}
	}
	o.Alpha = 0.001
	if _, err := Analyze(context.Background(), docsOf([]float64{30, 31}), o); err == nil || !strings.Contains(err.Error(), "want at least 999") {
		t.Errorf("too few permutations for alpha: %v", err)
	}
}
