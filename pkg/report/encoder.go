package report

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// DefaultEncoder is the output format used when none is chosen.
const DefaultEncoder = "table"

// ComparisonEncoder names the suite's output: every RDMA result beside
// its TCP baseline ([BaselineEncoder]).
const ComparisonEncoder = "comparison"

// Encoder writes a [Document] in one output format.
type Encoder interface {
	// Encode writes doc to w.
	Encode(w io.Writer, doc *Document) error
}

// Noter is an encoder whose format has no room for the caveats the
// table view writes below its tables (a run not clean, a percentile from
// too few samples, a point cut short, a failed expectation, ...). Notes
// are those lines, each a row's, in the table's words, without a newline:
// the command writes them to standard error once the output is written.
type Noter interface {
	Notes(doc *Document) []string
}

// registry holds the encoders by name, in registration order.
var registry struct {
	names []string
	encs  map[string]Encoder
}

func init() {
	Register("table", tableEncoder{})
	Register("json", jsonEncoder{})
	Register("csv", csvEncoder{})
	Register("hgrm", hgrmEncoder{})
	Register("perftest", perftestEncoder{})
	Register(ComparisonEncoder, BaselineEncoder{})
	Register(StreamEncoder, ndjsonEncoder{})
}

// StreamEncoder names the streamed document: one JSON record a line as
// the run goes, the whole document last (docs/json.md).
const StreamEncoder = "ndjson"

// Register makes enc available under name to [NewEncoder], replacing an
// encoder registered under that name before. Register it before the
// command line is parsed (from an init function or main).
func Register(name string, enc Encoder) {
	if registry.encs == nil {
		registry.encs = map[string]Encoder{}
	}
	if _, ok := registry.encs[name]; !ok {
		registry.names = append(registry.names, name)
	}
	registry.encs[name] = enc
}

// Encoders returns the registered output format names, in registration
// order (the built-in ones first).
func Encoders() []string { return append([]string(nil), registry.names...) }

// NewEncoder returns the encoder registered under name.
func NewEncoder(name string) (Encoder, error) {
	if enc, ok := registry.encs[name]; ok {
		return enc, nil
	}
	return nil, fmt.Errorf("unknown output %q: choose one of %s", name, strings.Join(registry.names, ", "))
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
// iterations of a point measured as asked; in duration mode, or for a
// point cut short (partial, insufficient: an interrupted run, a point the
// run stopped before), the operations measured, the document's ops, so
// that no row shows the count asked beside figures of fewer. [rowNotes]
// says so where it is not the count asked.
func iterationsShown(r *Result, s Summary) int64 {
	switch {
	case r.Iterations > 0 && (r.Status == "" || r.Status == StatusOK):
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
