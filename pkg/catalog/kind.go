package catalog

// Kind tells what a result measures, and so how it is tabulated.
type Kind int

const (
	// KindUnknown is the zero Kind: the result is tabulated as latency when
	// it has latency data, else as bandwidth.
	KindUnknown Kind = iota
	// Latency results carry per-operation latency samples or a histogram.
	Latency
	// Bandwidth results carry byte and operation counts over a time span.
	Bandwidth
)

// String returns "latency", "bandwidth" or "unknown".
func (k Kind) String() string {
	switch k {
	case Latency:
		return "latency"
	case Bandwidth:
		return "bandwidth"
	default:
		return "unknown"
	}
}
