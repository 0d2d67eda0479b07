package history

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
)

// Detector finds change points in a series with E-divisive means
// (Matteson and James, "A nonparametric approach for multiple change
// point analysis of multivariate data", JASA 2014), as Apache Otava
// (formerly Hunter) and MongoDB's performance CI use it, with the energy
// distance's exponent 1: a change point splits a segment where the
// values before and after differ most in distribution, weighted by the
// sizes of both sides; each candidate is kept only when a permutation
// test says a split as strong is rare without a change.
//
// Why this method: it assumes nothing of the noise's distribution (the
// emulator's is skewed and heavy-tailed), finds several changes, and its
// permutation test gives a false change rate that is checked, not
// assumed: at most Alpha per test, a test per change found plus the one
// that ends the search.
type Detector struct {
	// Alpha is the permutation test's level: a split is kept when at most
	// a fraction Alpha of the permuted series split as strongly.
	Alpha float64
	// Permutations bounds the permutations per test; the test stops as
	// soon as it cannot be significant any more.
	Permutations int
	// MinSegment is the fewest values on each side of a change.
	MinSegment int
	// Seed makes the permutations, and so the p-values, repeatable.
	Seed uint64
}

// Split is one change point found: the series changes at Index (the
// first value after the change), with the split's statistic and its
// permutation p-value.
type Split struct {
	Index int
	Q     float64
	P     float64
}

// Find returns the change points of x, in order of index, and the p-value
// of the test that ended the search (the strongest split left, not
// significant; 1 when no segment could be split). ctx is checked between
// permutations.
func (d Detector) Find(ctx context.Context, x []float64) ([]Split, float64, error) {
	rng := rand.New(rand.NewPCG(d.Seed, 0x9e3779b97f4a7c15))
	bounds := []int{0, len(x)} // segment edges
	var found []Split
	for {
		best, seg := d.best(x, bounds)
		if seg < 0 {
			return found, 1, nil
		}
		p, err := d.pvalue(ctx, x, bounds, best.Q, rng)
		if err != nil {
			return nil, 0, err
		}
		if p > d.Alpha {
			return found, p, nil
		}
		best.P = p
		found = append(found, best)
		bounds = append(bounds, best.Index)
		slices.Sort(bounds)
		slices.SortFunc(found, func(a, b Split) int { return a.Index - b.Index })
	}
}

// best is the strongest split of any segment between bounds, and the
// segment's position; -1 when no segment is long enough.
func (d Detector) best(x []float64, bounds []int) (Split, int) {
	best, seg := Split{Q: math.Inf(-1)}, -1
	for i := 0; i+1 < len(bounds); i++ {
		if s, ok := d.bestIn(x[bounds[i]:bounds[i+1]]); ok && s.Q > best.Q {
			best, seg = Split{Index: bounds[i] + s.Index, Q: s.Q}, i
		}
	}
	return best, seg
}

// bestIn finds the split of one segment with the largest statistic
//
//	Q(t) = m k / n x (2/(m k) sum|x_i - y_j| - sum|x_i - x_i'| / C(m,2) - sum|y_j - y_j'| / C(k,2))
//
// over the m values before t and the k = n - m after, each side holding
// at least MinSegment. It takes O(n^2): the sums are kept as t moves.
func (d Detector) bestIn(x []float64) (Split, bool) {
	n, minSeg := len(x), max(d.MinSegment, 2)
	if n < 2*minSeg {
		return Split{}, false
	}
	var total float64
	for i := range n {
		for j := i + 1; j < n; j++ {
			total += math.Abs(x[i] - x[j])
		}
	}
	// left: pairs within x[:t]; cross: pairs across; right: the rest.
	var left, cross float64
	for j := 1; j < n; j++ {
		cross += math.Abs(x[0] - x[j])
	}
	best := Split{Q: math.Inf(-1)}
	for t := 1; t <= n-minSeg; t++ {
		if t >= minSeg {
			m, k := float64(t), float64(n-t)
			right := total - left - cross
			e := 2*cross/(m*k) - left/(m*(m-1)/2) - right/(k*(k-1)/2)
			if q := m * k / float64(n) * e; q > best.Q {
				best = Split{Index: t, Q: q}
			}
		}
		// x[t] moves from the right to the left.
		var toLeft, toRight float64
		for i := 0; i < t; i++ {
			toLeft += math.Abs(x[i] - x[t])
		}
		for j := t + 1; j < n; j++ {
			toRight += math.Abs(x[t] - x[j])
		}
		left += toLeft
		cross += toRight - toLeft
	}
	return best, true
}

// pvalue is the permutation test of a split as strong as q: the share of
// series, each segment's values shuffled within it (the changes found so
// far kept), whose strongest split is at least as strong, counting the
// series itself. It stops once the p-value cannot come out below Alpha.
func (d Detector) pvalue(ctx context.Context, x []float64, bounds []int, q float64, rng *rand.Rand) (float64, error) {
	r := max(d.Permutations, 1)
	limit := d.Alpha * float64(r+1) // more exceedances than this: not significant
	y := slices.Clone(x)
	over, done := 0, 0
	for done < r {
		if err := ctx.Err(); err != nil {
			return 0, context.Cause(ctx)
		}
		for i := 0; i+1 < len(bounds); i++ {
			s := y[bounds[i]:bounds[i+1]]
			rng.Shuffle(len(s), func(a, b int) { s[a], s[b] = s[b], s[a] })
		}
		done++
		if b, seg := d.best(y, bounds); seg >= 0 && b.Q >= q {
			over++
			if float64(over+1) > limit {
				return float64(over+1) / float64(done+1), nil
			}
		}
	}
	return float64(over+1) / float64(r+1), nil
}
