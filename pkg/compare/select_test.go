package compare

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// This file checks the selection of select.go against the all-pairs
// method it replaced: list every element, sort, index.

// allDiffs lists the len(base) x len(new) differences log(new) - log(base),
// sorted, as ShiftInterval did before select.go.
func allDiffs(base, new []float64) []float64 {
	d := make([]float64, 0, len(base)*len(new))
	for _, b := range base {
		for _, n := range new {
			d = append(d, math.Log(n)-math.Log(b))
		}
	}
	slices.Sort(d)
	return d
}

// allWalsh lists the Walsh averages of the per-pair log ratios, sorted, as
// PairedShift did before select.go.
func allWalsh(base, new []float64) []float64 {
	d := make([]float64, len(base))
	for i := range base {
		d[i] = math.Log(new[i]) - math.Log(base[i])
	}
	var w []float64
	for i := range d {
		for j := i; j < len(d); j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	slices.Sort(w)
	return w
}

// bruteShift is ShiftInterval by the all-pairs method (sorted holds the
// elements, n1 and n2 the sample sizes), and brutePaired PairedShift's.
func bruteShift(sorted []float64, order func(float64) (int, float64), confidence float64) Shift {
	m := len(sorted)
	est := sorted[m/2]
	if m%2 == 0 {
		est = (sorted[m/2-1] + sorted[m/2]) / 2
	}
	k, achieved := order(confidence)
	s := Shift{EstimatePct: logPct(est), LoPct: math.Inf(-1), HiPct: math.Inf(1), Confidence: achieved}
	if k >= 1 {
		s.LoPct, s.HiPct = logPct(sorted[k-1]), logPct(sorted[m-k])
	}
	return s
}

// sample draws n positive values: continuous, or from a few levels (many
// ties), or around 1 so that some log ratios are exactly 0.
func sample(rng *rand.Rand, n, kind int) []float64 {
	v := make([]float64, n)
	for i := range v {
		switch kind {
		case 0:
			v[i] = 10 * math.Exp(rng.NormFloat64()*0.05)
		case 1:
			v[i] = float64(10 + rng.IntN(4))
		default:
			v[i] = 1 + float64(rng.IntN(3))*0.001
		}
	}
	return v
}

func sameBits(a, b Shift) bool {
	eq := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	return eq(a.EstimatePct, b.EstimatePct) && eq(a.LoPct, b.LoPct) && eq(a.HiPct, b.HiPct) && eq(a.Confidence, b.Confidence)
}

// TestSelectEveryOrder: every order statistic that selection gives is the
// element the sorted all-pairs list holds at that rank, bit for bit, for
// small samples with and without ties.
func TestSelectEveryOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n1 := 1; n1 <= 9; n1++ {
		for n2 := 1; n2 <= 9; n2++ {
			for kind := range 3 {
				base, new := sample(rng, n1, kind), sample(rng, n2, kind)
				want := allDiffs(base, new)
				x, _ := sortedLogs(new)
				y, _ := sortedLogs(base)
				for k := 1; k <= len(want); k++ {
					if got := kthDiff(x, y, k); math.Float64bits(got) != math.Float64bits(want[k-1]) {
						t.Fatalf("%dx%d kind %d: difference %d = %v, all pairs %v", n1, n2, kind, k, got, want[k-1])
					}
				}
				if n1 != n2 {
					continue
				}
				want = allWalsh(base, new)
				d := make([]float64, n1)
				for i := range d {
					d[i] = math.Log(new[i]) - math.Log(base[i])
				}
				slices.Sort(d)
				for k := 1; k <= len(want); k++ {
					if got := kthWalsh(d, k); math.Float64bits(got) != math.Float64bits(want[k-1]) {
						t.Fatalf("n=%d kind %d: Walsh average %d = %v, all pairs %v", n1, kind, k, got, want[k-1])
					}
				}
			}
		}
	}
}

// TestShiftMatchesAllPairs: ShiftInterval and PairedShift give bit for bit
// what the all-pairs method gave, on random samples of many sizes (exact
// and normal-approximation orders, odd and even numbers of elements), with
// and without ties, at three levels.
func TestShiftMatchesAllPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sizes := []int{1, 2, 3, 4, 5, 7, 10, 16, 31, 50, 51, 64, 99, 100, 101, 150, 257}
	for _, n1 := range sizes {
		for _, n2 := range sizes {
			kind := rng.IntN(3)
			base, new := sample(rng, n1, kind), sample(rng, n2, kind)
			all := allDiffs(base, new)
			for _, c := range []float64{0.9, 0.95, 0.99} {
				got, err := ShiftInterval(base, new, c)
				if err != nil {
					t.Fatal(err)
				}
				want := bruteShift(all, func(c float64) (int, float64) { return shiftOrder(n1, n2, c) }, c)
				if !sameBits(got, want) {
					t.Fatalf("%dx%d kind %d at %v: got %+v, all pairs %+v", n1, n2, kind, c, got, want)
				}
				if n1 != n2 {
					continue
				}
				got, err = PairedShift(base, new, c)
				if err != nil {
					t.Fatal(err)
				}
				want = bruteShift(allWalsh(base, new), func(c float64) (int, float64) { return signedRankOrder(n1, c) }, c)
				if !sameBits(got, want) {
					t.Fatalf("%d pairs kind %d at %v: got %+v, all pairs %+v", n1, kind, c, got, want)
				}
			}
		}
	}
}

// TestShiftLargeLinear: 30,000 runs a side, 9e8 differences (7.2 GB as a
// list), are selected in memory linear in the runs: the heap grows by
// less than 10 MB (the two sorted logs take 480 KB).
func TestShiftLargeLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	base, new := sample(rng, 30000, 0), sample(rng, 30000, 1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := ShiftInterval(base, new, 0.95); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 10<<20 {
		t.Fatalf("30000 x 30000: allocated %d bytes, want under 10 MB", grew)
	}
}
