package compare

import "math"

// The order statistics of [ShiftInterval] and [PairedShift] are taken from
// the n1 x n2 pairwise differences and the n(n+1)/2 Walsh averages without
// building either list: memory stays linear in the runs compared, and the
// result is the very element that sorting the whole list would give.
//
// Why that is exact: the elements are floating-point results, fl(x - y)
// and fl(x + y) / 2, and IEEE rounding is monotone, so with x and y sorted
// each row and each column of the (implicit) matrix of elements is sorted
// too. Counting the elements <= t is then a two-pointer walk, O(n1 + n2).
// The k-th smallest element is the smallest float64 t with at least k
// elements <= t (the count only steps at an element's value, so that t is
// an element), found by bisection over the float64s between the smallest
// and the largest element taken in their order as integers: at most 64
// counts. Time O((n1 + n2) x 64) per order statistic, after the sort.

// kthSmallest returns the smallest float64 t in [lo, hi] with
// countLE(t) >= k, where countLE counts the elements <= t, lo is the
// smallest element, hi the largest and 1 <= k <= countLE(hi). No element
// is -0 (see shiftLogs), so a zero result is +0.
func kthSmallest(lo, hi float64, k int, countLE func(t float64) int) float64 {
	l, h := floatKey(lo), floatKey(hi)
	for l < h {
		mid := l + (h-l)/2
		if countLE(keyFloat(mid)) >= k {
			h = mid
		} else {
			l = mid + 1
		}
	}
	if v := keyFloat(l); v != 0 {
		return v
	}
	return 0
}

// floatKey maps a float64 that is not NaN to an integer of the same order.
func floatKey(f float64) uint64 {
	b := math.Float64bits(f)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// keyFloat is floatKey's inverse.
func keyFloat(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// kthDiff returns the k-th smallest (1-based) of the len(x) x len(y)
// differences x[j] - y[i], x and y sorted ascending.
func kthDiff(x, y []float64, k int) float64 {
	countLE := func(t float64) int {
		// For y[i] rising, x[j] - y[i] falls: the prefix of x with
		// x[j] - y[i] <= t only grows.
		n, j := 0, 0
		for _, yi := range y {
			for j < len(x) && x[j]-yi <= t {
				j++
			}
			n += j
		}
		return n
	}
	return kthSmallest(x[0]-y[len(y)-1], x[len(x)-1]-y[0], k, countLE)
}

// kthWalsh returns the k-th smallest (1-based) of the n(n+1)/2 Walsh
// averages (d[i] + d[j]) / 2, i <= j, d sorted ascending.
func kthWalsh(d []float64, k int) float64 {
	countLE := func(t float64) int {
		// Row i holds j = i..p with (d[i] + d[j]) / 2 <= t; p only falls
		// as i rises, and once row i is empty so are the rows after it.
		n, p := 0, len(d)-1
		for i := range d {
			for p >= i && (d[i]+d[p])/2 > t {
				p--
			}
			if p < i {
				break
			}
			n += p - i + 1
		}
		return n
	}
	last := len(d) - 1
	return kthSmallest((d[0]+d[0])/2, (d[last]+d[last])/2, k, countLE)
}
