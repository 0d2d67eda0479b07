package compare

import (
	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"math"
	"math/rand/v2"
	"testing"
)

func TestPlan(t *testing.T) {
	p := Plan{Alpha: 0.01, Rows: 5, Looks: 4}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	if got := p.TestAlpha(); math.Abs(got-0.0005) > 1e-15 {
		t.Errorf("TestAlpha = %g, want 0.0005", got)
	}
	if got := p.Confidence(); math.Abs(got-0.999) > 1e-12 {
		t.Errorf("Confidence = %g, want 0.999", got)
	}
	for _, bad := range []Plan{{Alpha: 0, Rows: 1, Looks: 1}, {Alpha: 0.6, Rows: 1, Looks: 1}, {Alpha: 0.01, Looks: 1}, {Alpha: 0.01, Rows: 1}} {
		if bad.Check() == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestDecide(t *testing.T) {
	lat := Threshold{Metric: metric.LatP50, LimitPct: 5}
	bw := Threshold{Metric: metric.BW, LimitPct: 5}
	cases := []struct {
		th          Threshold
		est, lo, hi float64
		want        Decision
	}{
		{lat, 0.5, -1, 2, Pass},
		{lat, 3, 1, 5.5, Fail},       // certain, and at least half the threshold
		{lat, 2, 0.5, 3.5, Pass},     // certain but small: within the threshold
		{lat, 2, 0.5, 6, Undecided},  // certain, small, may reach the threshold
		{lat, 4, -1, 9, Undecided},   // may be none, may be beyond
		{lat, -6, -8, -4, Pass},      // faster
		{bw, -3, -5.5, -1, Fail},     // bandwidth down by 3%
		{bw, 1, -2, 4, Pass},         //
		{bw, -3, -6, 0.5, Undecided}, //
		{bw, 8, 5, 11, Pass},         // faster
	}
	for _, c := range cases {
		got := Decide(Shift{EstimatePct: c.est, LoPct: c.lo, HiPct: c.hi, Confidence: 0.99}, c.th)
		if got != c.want {
			t.Errorf("%s %+g [%+g, %+g]: %s, want %s", c.th, c.est, c.lo, c.hi, got, c.want)
		}
	}
}

func TestDecisionText(t *testing.T) {
	for _, d := range []Decision{Undecided, Pass, Fail} {
		b, err := d.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Decision
		if err := back.UnmarshalText(b); err != nil || back != d {
			t.Fatalf("%s: round trip %v, %v", d, back, err)
		}
	}
	if err := new(Decision).UnmarshalText([]byte("maybe")); err == nil {
		t.Fatal("unknown name: no error")
	}
}

func TestDetectablePct(t *testing.T) {
	lat := Threshold{Metric: metric.LatP50, LimitPct: 5}
	// A 99% interval of +/-4% (in log units) around 0: a change must clear
	// 4% plus 0.84 standard errors of 4%/2.576.
	h := 0.04
	s := Shift{EstimatePct: 0, LoPct: math.Expm1(-h) * 100, HiPct: math.Expm1(h) * 100, Confidence: 0.99}
	want := math.Expm1(h+0.8416212335729143*h/2.5758293035489) * 100
	if got := DetectablePct(s, lat); math.Abs(got-want) > 1e-6 {
		t.Errorf("latency: %g, want %g", got, want)
	}
	// A narrow interval: half the threshold bounds it from below.
	s = Shift{EstimatePct: 0, LoPct: -0.1, HiPct: 0.1, Confidence: 0.99}
	if got := DetectablePct(s, lat); got < 2.5 || got > 2.7 {
		t.Errorf("narrow: %g, want just above 2.5", got)
	}
	bw := Threshold{Metric: metric.BW, LimitPct: 5}
	s = Shift{EstimatePct: 0, LoPct: math.Expm1(-h) * 100, HiPct: math.Expm1(h) * 100, Confidence: 0.99}
	wantBW := -math.Expm1(-(h + 0.8416212335729143*h/2.5758293035489)) * 100
	if got := DetectablePct(s, bw); math.Abs(got-wantBW) > 1e-6 {
		t.Errorf("bandwidth: %g, want %g", got, wantBW)
	}
	if got := DetectablePct(Shift{LoPct: math.Inf(-1), HiPct: math.Inf(1), Confidence: 1}, lat); !math.IsInf(got, 1) {
		t.Errorf("unbounded: %g, want +Inf", got)
	}
}

// TestPlanFalseAlarms simulates A/A gates of 5 rows looked at 4 times,
// with noise shared by the rows and a drift shared by each pair, and
// checks the share of gates that fail against the plan's alpha.
func TestPlanFalseAlarms(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := Plan{Alpha: 0.05, Rows: 5, Looks: 4}
	lat := Threshold{Metric: metric.LatP50, LimitPct: 5}
	const gates = 400
	fails := 0
	for range gates {
		var b, c [5][]float64
		failed := false
		for pair := 1; pair <= 40 && !failed; pair++ {
			drift := math.Exp(0.1 * rng.NormFloat64())
			for r := range b {
				b[r] = append(b[r], drift*math.Exp(0.03*rng.NormFloat64()))
				c[r] = append(c[r], drift*math.Exp(0.03*rng.NormFloat64()))
			}
			if pair%10 != 0 {
				continue
			}
			for r := range b {
				s, err := PairedShift(b[r], c[r], p.Confidence())
				if err != nil {
					t.Fatal(err)
				}
				failed = failed || Decide(s, lat) == Fail
			}
		}
		if failed {
			fails++
		}
	}
	if rate := float64(fails) / gates; rate > p.Alpha {
		t.Fatalf("%d of %d A/A gates failed (%.1f%%), plan alpha %g", fails, gates, rate*100, p.Alpha)
	}
}
