package plot

import (
	"errors"
	"fmt"
	"math"
)

var errNoSeries = errors.New("no series to draw: want at least one with at least one point")

// names checks that every series has a distinct non-empty name.
func checkNames(names []string) error {
	if len(names) == 0 {
		return errNoSeries
	}
	seen := map[string]bool{}
	for i, n := range names {
		if n == "" {
			return fmt.Errorf("series %d: empty name: want one such as \"write_lat\"", i+1)
		}
		if seen[n] {
			return fmt.Errorf("series %q: name used twice: want distinct names", n)
		}
		seen[n] = true
	}
	return nil
}

// checkSize checks a message size for a log axis.
func checkSize(series string, size int) error {
	if size <= 0 {
		return fmt.Errorf("series %q: size %d bytes: want a positive size", series, size)
	}
	return nil
}

// checkPositive checks a value for a log axis.
// what names the value ("p50 latency at 64 B"), unit follows the number.
func checkPositive(series, what string, v float64, unit string) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return fmt.Errorf("series %q: %s: %v%s: want a positive finite number (the axis is logarithmic)", series, what, v, unit)
	}
	return nil
}

// checkFinite checks a value for a linear axis.
func checkFinite(series, what string, v float64, unit string) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("series %q: %s: %v%s: want a finite number", series, what, v, unit)
	}
	return nil
}
