package compare

import (
	"fmt"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"math"
)

// fmtPct formats a change in percent with its sign, "+4.1%"; an unbounded
// end reads "-inf" or "+inf".
func fmtPct(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "+inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return fmt.Sprintf("%+.1f%%", x)
}

// fmtInterval formats an interval of percentages, "[+1.2%, +3.4%]".
func fmtInterval(lo, hi float64) string {
	return "[" + fmtPct(lo) + ", " + fmtPct(hi) + "]"
}

// fmtValue formats a measured value with four significant digits and no
// exponent (report.Significant: no nonzero value rounds to zero); an
// unbounded end reads "-inf" or "+inf".
func fmtValue(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "+inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return report.Significant(x, 4)
}

// fmtP formats a p-value with three decimals, "p<0.001" below that.
func fmtP(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}
