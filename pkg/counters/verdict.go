package counters

import (
	"fmt"
	"strings"
)

// RunHealth says whether a run was clean: counters were read, and no
// retransmission or error counter moved.
type RunHealth struct {
	Clean bool `json:"clean"`
	// Available: RDMA counters were read before and after the run.
	Available bool `json:"counters_available"`
	// Moved lists every retransmission or error counter that moved, each
	// once (freshest source).
	Moved []Delta `json:"moved,omitempty"`
	// Suspect lists retransmission or error counters that went backwards
	// or saturated: whether they moved is unknown.
	Suspect []Delta `json:"suspect,omitempty"`
	// Unavailable is what could not be read (Deltas.Unavailable).
	Unavailable []Unavailable `json:"unavailable,omitempty"`
}

// Clean judges the run: not clean when any retransmission or error counter
// of the RDMA sources moved, went backwards or saturated, or when no RDMA
// counter could be read. The netdev source is left out: it counts traffic
// other than the run's.
func (d Deltas) Clean() RunHealth {
	v := RunHealth{Unavailable: d.Unavailable}
	for _, c := range d.unique() {
		v.Available = true
		if !c.Class.Moves() {
			continue
		}
		switch {
		case !c.Usable():
			v.Suspect = append(v.Suspect, c)
		case c.Delta > 0:
			v.Moved = append(v.Moved, c)
		}
	}
	v.Clean = v.Available && len(v.Moved) == 0 && len(v.Suspect) == 0
	return v
}

// String says "clean", or why not, e.g.
// "not clean: duplicate_request +3 packets, completer_retry_err +2 events".
func (v RunHealth) String() string {
	if !v.Available {
		var why []string
		for _, u := range v.Unavailable {
			if u.Source != SourceNetdev {
				why = append(why, u.String())
			}
		}
		if len(why) == 0 {
			return "counters unavailable: no RDMA counter was read"
		}
		return "counters unavailable: " + strings.Join(why, "; ")
	}
	if v.Clean {
		return "clean"
	}
	var parts []string
	for _, c := range v.Moved {
		parts = append(parts, fmt.Sprintf("%s +%d %s", c.Name, c.Delta, c.Unit))
	}
	for _, c := range v.Suspect {
		what := "went backwards"
		if c.Saturated {
			what = "saturated"
		}
		parts = append(parts, fmt.Sprintf("%s %s", c.Name, what))
	}
	return "not clean: " + strings.Join(parts, ", ")
}

// retransmissions sums the retransmission-class deltas of the RDMA sources
// (each counter once) over the given ports' deltas.
func retransmissions(ds ...Deltas) uint64 {
	var n uint64
	for _, d := range ds {
		for _, c := range d.unique() {
			if c.Class == ClassRetransmission && c.Usable() {
				n += c.Delta
			}
		}
	}
	return n
}

// Warnings lists what the caller should warn about: every counter or
// source that could not be read, except whole sources the driver simply
// does not have (rxe has no PMA counters/ directory and no device-level
// hw_counters/), as long as some RDMA counter was read.
func (v RunHealth) Warnings() []string {
	var out []string
	for _, u := range v.Unavailable {
		if v.Available && u.Name == "" && u.Reason == ReasonMissing {
			continue
		}
		out = append(out, u.String())
	}
	return out
}
