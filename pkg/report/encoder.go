package report

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Encoders are the output format names accepted by [NewEncoder], the
// default first.
var Encoders = [...]string{"table", "json", "csv", "hgrm"}

// DefaultEncoder is the output format used when none is chosen.
const DefaultEncoder = "table"

// Encoder writes a [Document] in one output format.
type Encoder interface {
	// Encode writes doc to w.
	Encode(w io.Writer, doc *Document) error
}

// NewEncoder returns the encoder named name, one of [Encoders].
func NewEncoder(name string) (Encoder, error) {
	switch name {
	case "table":
		return tableEncoder{}, nil
	case "json":
		return jsonEncoder{}, nil
	case "csv":
		return csvEncoder{}, nil
	case "hgrm":
		return hgrmEncoder{}, nil
	}
	return nil, fmt.Errorf("unknown output %q: choose one of %s", name, strings.Join(Encoders[:], ", "))
}

var errNilDocument = errors.New("encode: nil document")

// validResults returns doc's results without nil entries.
func validResults(doc *Document) []*Result {
	out := make([]*Result, 0, len(doc.Results))
	for _, r := range doc.Results {
		if r != nil {
			out = append(out, r)
		}
	}
	return out
}

// iterationsShown is what the "#iterations" column shows: the configured
// iterations, or in duration mode the number of operations measured.
func iterationsShown(r *Result, s Summary) int64 {
	switch {
	case r.Iterations > 0:
		return int64(r.Iterations)
	case r.Ops > 0:
		return int64(r.Ops)
	case s.Latency != nil:
		return s.Latency.Count
	}
	return 0
}

// isLatency tells whether r is tabulated as a latency result.
func isLatency(r *Result) bool {
	switch r.Kind {
	case Latency:
		return true
	case Bandwidth:
		return false
	}
	return len(r.SamplesNS) > 0 || r.Hist != nil
}
