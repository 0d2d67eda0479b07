package compare

import (
	"fmt"
)

// fmtP formats a p-value with three decimals, "p<0.001" below that.
func fmtP(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}
