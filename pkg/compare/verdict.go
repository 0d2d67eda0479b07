package compare

import "fmt"

// Verdict is the outcome of comparing one point and metric.
type Verdict int

// The verdicts. Slower and Faster are read through the metric's
// direction: a larger latency or CPU cost is Slower, a larger bandwidth is
// Faster.
const (
	// Inconclusive means the data cannot decide; the row says why and
	// estimates how many runs would.
	Inconclusive Verdict = iota
	// Same means the whole interval of the change lies inside the noise
	// band: parity is a result.
	Same
	// Faster means a significant improvement beyond the noise band.
	Faster
	// Slower means a significant regression beyond the noise band.
	Slower
)

var verdictNames = [...]string{"inconclusive", "same", "faster", "slower"}

// String returns the verdict in lower case, as in every output format.
func (v Verdict) String() string {
	if v < 0 || int(v) >= len(verdictNames) {
		return fmt.Sprintf("verdict(%d)", int(v))
	}
	return verdictNames[v]
}

// MarshalText encodes the verdict as its name.
func (v Verdict) MarshalText() ([]byte, error) {
	if v < 0 || int(v) >= len(verdictNames) {
		return nil, fmt.Errorf("verdict %d: want one of %v", int(v), verdictNames)
	}
	return []byte(v.String()), nil
}
