package compare

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSignedRankCDFByEnumeration checks the distribution against every
// sign pattern of n ranks.
func TestSignedRankCDFByEnumeration(t *testing.T) {
	for n := 1; n <= 12; n++ {
		m := n * (n + 1) / 2
		count := make([]float64, m+1)
		for mask := 0; mask < 1<<n; mask++ {
			s := 0
			for r := 1; r <= n; r++ {
				if mask&(1<<(r-1)) != 0 {
					s += r
				}
			}
			count[s]++
		}
		cdf := signedRankCDF(n)
		acc := 0.0
		for s := 0; s <= m; s++ {
			acc += count[s] / float64(uint64(1)<<n)
			if math.Abs(cdf[s]-acc) > 1e-12 {
				t.Fatalf("n=%d: P(T<=%d) = %g, enumeration %g", n, s, cdf[s], acc)
			}
		}
	}
}

// TestSignedRankOrderTable checks k against the signed-rank table: at n=10
// and 95% the two-sided critical value is 8 (P(T<=8) = 25/1024), so the
// interval starts at the 9th Walsh average.
func TestSignedRankOrderTable(t *testing.T) {
	k, c := signedRankOrder(10, 0.95)
	if k != 9 || math.Abs(c-(1-2*25.0/1024)) > 1e-12 {
		t.Fatalf("n=10 95%%: k=%d coverage %g, want 9 and %g", k, c, 1-2*25.0/1024)
	}
	// n=5 cannot reach 95% (P(T<=0) = 1/32 > 0.025): unbounded.
	if k, c := signedRankOrder(5, 0.95); k != 0 || c != 1 {
		t.Fatalf("n=5 95%%: k=%d coverage %g, want 0 and 1", k, c)
	}
	// The normal approximation beyond the exact limit agrees with the
	// exact distribution near it.
	ke, _ := signedRankOrder(signedRankExactLimit, 0.99)
	n := signedRankExactLimit
	m := n * (n + 1) / 2
	mu, sigma := float64(m)/2, math.Sqrt(float64(n*(n+1)*(2*n+1))/24)
	ka := int(math.Floor(mu - 2.5758293035489*sigma + 0.5))
	if d := ke - ka; d < -ke/100 || d > ke/100 {
		t.Fatalf("n=%d 99%%: exact k=%d, normal k=%d", n, ke, ka)
	}
}

func TestPairedShift(t *testing.T) {
	base := []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	new := make([]float64, len(base))
	for i, b := range base {
		new[i] = b * 1.05
	}
	s, err := PairedShift(base, new, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s.EstimatePct-5) > 1e-9 || math.Abs(s.LoPct-5) > 1e-9 || math.Abs(s.HiPct-5) > 1e-9 {
		t.Fatalf("a constant ratio of 1.05: %+v, want 5%% with a zero-width interval", s)
	}
	// Log ratios 1..10 (in hundredths): the Walsh averages' median is 5.5
	// and the 95% interval is [w(9), w(47)] of the 55 sorted averages.
	for i := range base {
		base[i] = 1
		new[i] = math.Exp(float64(i+1) / 100)
	}
	s, err = PairedShift(base, new, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if got := math.Log1p(s.EstimatePct/100) * 100; math.Abs(got-5.5) > 1e-9 {
		t.Fatalf("estimate %g (log %%), want 5.5", got)
	}
	if lo, hi := math.Log1p(s.LoPct/100)*100, math.Log1p(s.HiPct/100)*100; math.Abs(lo-3) > 1e-9 || math.Abs(hi-8) > 1e-9 {
		t.Fatalf("interval [%g, %g] (log %%), want [3, 8]", lo, hi)
	}
	for _, bad := range [][2][]float64{{{1}, {1, 2}}, {{}, {}}, {{1, -1}, {1, 1}}, {{1, math.Inf(1)}, {1, 1}}} {
		if _, err := PairedShift(bad[0], bad[1], 0.95); err == nil {
			t.Errorf("PairedShift(%v, %v): no error", bad[0], bad[1])
		}
	}
}

// TestPairedShiftCoverage: under the null hypothesis the interval holds 0
// at least as often as its confidence says (simulated, heavy-tailed
// noise), and a shift is inside it as often.
func TestPairedShiftCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const trials, n = 2000, 20
	miss := 0
	for range trials {
		b, c := make([]float64, n), make([]float64, n)
		for i := range b {
			drift := math.Exp(0.2 * rng.NormFloat64()) // shared by the pair
			b[i] = drift * math.Exp(0.05*rng.NormFloat64()/(0.2+rng.Float64()))
			c[i] = 1.1 * drift * math.Exp(0.05*rng.NormFloat64()/(0.2+rng.Float64()))
		}
		s, err := PairedShift(b, c, 0.9)
		if err != nil {
			t.Fatal(err)
		}
		if s.LoPct > 10+1e-9 || s.HiPct < 10-1e-9 {
			miss++
		}
	}
	if rate := float64(miss) / trials; rate > 0.1+0.02 {
		t.Fatalf("90%% interval missed the true +10%% in %.1f%% of %d trials", rate*100, trials)
	}
}
