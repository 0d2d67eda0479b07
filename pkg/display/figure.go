package display

import (
	"fmt"
	"math"
	"strconv"
)

// Figure formats v with prec decimals; a nonzero figure that would show
// fewer than two significant digits gets three: no figure rounds to zero
// (2 B of bandwidth is 0.000478 Gb/s, not 0.000).
func Figure(v float64, prec int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) >= math.Pow(10, 1-float64(prec)) {
		return strconv.FormatFloat(v, 'f', prec, 64)
	}
	// Two significant digits or fewer at prec decimals: show three.
	digits := 2 - int(math.Floor(math.Log10(math.Abs(v))))
	return strconv.FormatFloat(v, 'f', max(digits, prec), 64)
}

// Significant formats v with digits significant digits: 2.003, 361.2,
// 0.000478; never in exponent form, and no nonzero figure rounds to zero.
func Significant(v float64, digits int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	dec := digits - 1 - int(math.Floor(math.Log10(math.Abs(v))))
	return strconv.FormatFloat(v, 'f', max(0, dec), 64)
}

// Value formats a measured value beside others of its kind (a median, an
// interval's end) with four significant digits; an unbounded end reads
// "-inf" or "+inf".
func Value(x float64) string {
	if s, ok := inf(x); ok {
		return s
	}
	return Significant(x, 4)
}

// Pct formats a change in percent with its sign, "+4.1%"; an unbounded
// end reads "-inf" or "+inf".
func Pct(x float64) string {
	if s, ok := inf(x); ok {
		return s
	}
	return fmt.Sprintf("%+.1f%%", x)
}

// Interval formats an interval of percentages, "[+1.2%, +3.4%]".
func Interval(lo, hi float64) string { return "[" + Pct(lo) + ", " + Pct(hi) + "]" }

func inf(x float64) (string, bool) {
	switch {
	case math.IsInf(x, 1):
		return "+inf", true
	case math.IsInf(x, -1):
		return "-inf", true
	}
	return "", false
}

// Size writes a message size as a row names it: "64 B", "4 KiB",
// "1 MiB", "1 GiB"; a size that is no whole number of KiB in bytes.
func Size(n int) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// SizeTick writes a byte count as a chart's axis labels it, short: 2,
// 64, 4K, 64K, 1M, 1.5M (K = 1024 bytes).
func SizeTick(n int) string {
	for _, u := range []struct {
		s    string
		size int
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if n >= u.size {
			if n%u.size == 0 {
				return strconv.Itoa(n/u.size) + u.s
			}
			return strconv.FormatFloat(float64(n)/float64(u.size), 'g', 3, 64) + u.s
		}
	}
	return strconv.Itoa(n)
}

// Count is the iteration count a row shows: the iterations asked for,
// or the operations measured in duration mode (where iterations are 0).
func Count(iterations int, ops uint64) string {
	if iterations > 0 {
		return strconv.Itoa(iterations)
	}
	return strconv.FormatUint(ops, 10)
}

// Samples formats a latency sample count, "-" when there is none.
func Samples(n int64) string {
	if n <= 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}

// Loaders names a loader level (--loaders): "1 loader", "3 loaders".
func Loaders(n int) string {
	if n == 1 {
		return "1 loader"
	}
	return strconv.Itoa(n) + " loaders"
}
