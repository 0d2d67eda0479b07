package compare

// FormatConfidence formats a confidence level, "99.9%".
func FormatConfidence(c float64) string { return confLabel(c) }

// Paint colours text by a verdict's or outcome's name when colour is on.
// "undecided" is painted as "inconclusive".
func Paint(colour bool, name, text string) string {
	if name == Undecided.String() {
		name = Inconclusive.String()
	}
	return paint(colour, name, text)
}
