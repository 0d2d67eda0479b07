package compare

import (
	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"math"
	"math/rand/v2"
	"testing"
)

// TestPValueAgainstEnumeration checks the engine's p-value (benchmath's
// Mann-Whitney U test) against exhaustive enumeration, with and without
// ties.
func TestPValueAgainstEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 60 {
		n1, n2 := 3+rng.IntN(6), 3+rng.IntN(6)
		grid := 0.0 // continuous values: no ties
		if trial%2 == 1 {
			grid = 0.5 // coarse values: many ties, as with quantised latencies
		}
		shift := rng.Float64() * 2
		draw := func(n int, off float64) []float64 {
			v := make([]float64, n)
			for i := range v {
				v[i] = 10 + off + rng.NormFloat64()
				if grid > 0 {
					v[i] = math.Round(v[i]/grid) * grid
				}
			}
			return v
		}
		base, nw := draw(n1, 0), draw(n2, shift)
		row, err := Compare(Series{Point: "p", Metric: metric.LatP50, Base: base, New: nw}, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if want := exactP(base, nw); math.Abs(row.P-want) > 1e-9 {
			t.Errorf("trial %d, %v vs %v: p = %v, enumeration gives %v", trial, base, nw, row.P, want)
		}
	}
}

// TestPValueAgainstPublishedTable checks significance at the critical
// values of the published table of the Mann-Whitney U test (two-tailed,
// alpha 0.05, as printed in statistics textbooks; "reject when U <= the
// critical value"): U at the
// critical value is significant (p <= 0.05), one above it is not.
func TestPValueAgainstPublishedTable(t *testing.T) {
	table := []struct{ n1, n2, crit int }{
		{4, 4, 0}, {4, 5, 1}, {4, 6, 2}, {4, 7, 3}, {4, 8, 4}, {5, 5, 2}, {5, 6, 3}, {5, 7, 5}, {5, 8, 6},
		{6, 6, 5}, {6, 7, 6}, {6, 8, 8}, {7, 7, 8}, {7, 8, 10}, {8, 8, 13}, {10, 10, 23},
	}
	for _, c := range table {
		for _, u := range []int{c.crit, c.crit + 1} {
			base, nw := withU(c.n1, c.n2, u)
			if got := uStat(base, nw); got != float64(u) {
				t.Fatalf("withU(%d, %d, %d) built U = %v", c.n1, c.n2, u, got)
			}
			row, err := Compare(Series{Point: "p", Metric: metric.LatP50, Base: base, New: nw}, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if sig := row.P <= 0.05; sig != (u <= c.crit) {
				t.Errorf("n1=%d n2=%d U=%d: p = %v, table critical value %d", c.n1, c.n2, u, row.P, c.crit)
			}
		}
	}
}

// TestPValueSeparated checks the published exact p-values of completely
// separated samples, 2/C(n1+n2, n1), and MinPValue.
func TestPValueSeparated(t *testing.T) {
	for _, c := range []struct {
		n1, n2 int
		p      float64
	}{{3, 3, 0.1}, {4, 4, 2.0 / 70}, {3, 4, 2.0 / 35}, {5, 5, 2.0 / 252}, {2, 20, 2.0 / 231}} {
		base, nw := withU(c.n1, c.n2, 0)
		row, err := Compare(Series{Point: "p", Metric: metric.LatP50, Base: base, New: nw}, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(row.P-c.p) > 1e-12 || math.Abs(MinPValue(c.n1, c.n2)-c.p) > 1e-12 {
			t.Errorf("n1=%d n2=%d: p = %v, MinPValue = %v, want %v", c.n1, c.n2, row.P, MinPValue(c.n1, c.n2), c.p)
		}
	}
}

func TestMinRuns(t *testing.T) {
	for _, c := range []struct {
		alpha float64
		want  int
	}{{0.05, 4}, {0.1, 4}, {0.11, 3}, {0.01, 5}, {0.001, 7}, {0, 0}, {1, 0}, {math.NaN(), 0}} {
		if got := MinRuns(c.alpha); got != c.want {
			t.Errorf("MinRuns(%v) = %d, want %d", c.alpha, got, c.want)
		}
	}
}
