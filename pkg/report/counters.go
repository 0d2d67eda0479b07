package report

import "github.com/rdma-bench/rdma-bench/pkg/document"

// NICCounters are the port counters read around a run and their verdict,
// as the saved document holds them (pkg/document).
type NICCounters = document.Counters

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
