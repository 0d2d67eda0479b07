package compare

import "math"

// JSONBound is an end of an interval as the documents write it: null when
// unbounded (too few runs or pairs for the confidence), since JSON has no
// infinity.
func JSONBound(x float64) *float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return &x
}

// BoundFromJSON reads an end written by JSONBound: null is -Inf for a
// lower end and +Inf for an upper one.
func BoundFromJSON(p *float64, upper bool) float64 {
	switch {
	case p != nil:
		return *p
	case upper:
		return math.Inf(1)
	}
	return math.Inf(-1)
}
