package fabric

import (
	"encoding/json"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// Caveat is what one workload's result in a pair's result says of the
// pair's figures of that workload: whether the port counters saw the run
// unclean, and how many latency samples its percentiles come from. The
// matrices, heat maps and findings mark them as the run tables do
// (display.UncleanMark, display.ThinMark).
type Caveat struct {
	Workload string
	// Unclean: the counters say the run was not clean; Counters is their
	// verdict ("not clean: duplicate_request +3 packets").
	Unclean  bool
	Counters string
	// Samples are the latency samples, 0 without any.
	Samples int64
}

// resultCaveats reads the caveats of a pair's result, a run document
// (docs/json.md); nil without a result, or for one of another shape: a
// Measurer's result is its own, and a pair without caveats is shown as
// it always was.
func resultCaveats(raw json.RawMessage) []Caveat {
	if len(raw) == 0 {
		return nil
	}
	var doc struct {
		Results []struct {
			Workload string `json:"workload"`
			Clean    *bool  `json:"clean"`
			Samples  int64  `json:"samples"`
			Counters *struct {
				Clean   *bool  `json:"clean"`
				Verdict string `json:"verdict"`
			} `json:"counters"`
		} `json:"results"`
	}
	if json.Unmarshal(raw, &doc) != nil {
		return nil
	}
	var out []Caveat
	for _, r := range doc.Results {
		c := Caveat{Workload: r.Workload, Samples: r.Samples, Unclean: display.Unclean(r.Clean)}
		if k := r.Counters; k != nil {
			c.Unclean = c.Unclean || display.Unclean(k.Clean)
			c.Counters = k.Verdict
		}
		if !c.Unclean {
			c.Counters = ""
		}
		if c.Unclean || c.Samples > 0 {
			out = append(out, c)
		}
	}
	return out
}

// Caveats are the caveats of p's result, read once (a pair read back
// from rank 0's log carries them without its result).
func (p *PairOutcome) Caveats() []Caveat {
	if !p.caveatsRead {
		p.caveats, p.caveatsRead = resultCaveats(p.Result), true
	}
	return p.caveats
}

// caveatOf says whether p's figure of metric ("write_lat.p99_us") is
// thin (a percentile from fewer samples than it needs, display.Thin) or
// unclean, with the workload's caveat.
func (p *PairOutcome) caveatOf(name string) (thin, unclean bool, c Caveat) {
	workload, key, _ := strings.Cut(name, ".")
	for _, x := range p.Caveats() {
		if x.Workload != workload {
			continue
		}
		m, ok := metric.ByKey(key)
		return ok && m.Percentile > 0 && display.Thin(m.Percentile, x.Samples), x.Unclean, x
	}
	return false, false, Caveat{}
}
