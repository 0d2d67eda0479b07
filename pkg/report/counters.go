package report

import "encoding/json"

// NICCounters are the NIC port counters read around a run on both sides, and
// what they say of it. The deltas are kept as their reader wrote them
// (this package does not interpret them); Verdict and Wire are the
// judgements made from them.
type NICCounters struct {
	// Clean is true when counters were read on the sides that could and no
	// retransmission or error counter moved; nil when none could be read.
	Clean *bool `json:"clean"`
	// Verdict says "clean", or why not ("not clean: duplicate_request +3
	// packets"), or "counters unavailable: ...".
	Verdict string `json:"verdict"`
	// Wire compares the packets and bytes counted with what the run posted
	// (headers and acknowledgements included): "within the expected
	// overhead (...)", or the figures that disagree; "" when not checked.
	Wire string `json:"wire,omitempty"`
	// Local and Remote are each side's counter deltas.
	Local  json.RawMessage `json:"local,omitempty"`
	Remote json.RawMessage `json:"remote,omitempty"`
}

// mergeCounters is the counters of several runs: clean when every one
// was, the first judgement that is not.
func mergeCounters(runs []*Result) *NICCounters {
	var m *NICCounters
	for _, r := range runs {
		c := r.Counters
		switch {
		case c == nil:
			continue
		case m == nil:
			m = &NICCounters{Clean: c.Clean, Verdict: c.Verdict, Wire: c.Wire}
		case c.Clean == nil || !*c.Clean:
			if m.Clean == nil || *m.Clean {
				m.Clean, m.Verdict = c.Clean, c.Verdict
			}
		}
		if m.Wire == "" || c.Wire != "" && !isWithin(c.Wire) {
			m.Wire = c.Wire
		}
	}
	return m
}

func isWithin(wire string) bool { return len(wire) >= 6 && wire[:6] == "within" }
