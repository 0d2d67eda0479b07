package counters

import (
	"fmt"
	"math"
	"sort"
)

// Delta is how much one counter moved between two snapshots.
type Delta struct {
	Source Source `json:"source"`
	// Name carries the unit where the counter's own name does not:
	// port_xmit_data (4-byte words) becomes port_xmit_data_bytes.
	Name    string `json:"name"`
	Counter string `json:"counter"` // the counter's own name
	Class   Class  `json:"class"`
	Unit    Unit   `json:"unit"`
	// Before, After and Delta are in Unit (bytes for word counters).
	Before uint64 `json:"before"`
	After  uint64 `json:"after"`
	Delta  uint64 `json:"delta"`
	// WentBackwards: After < Before (the counter was reset or wrapped);
	// Delta is then 0 and means nothing.
	WentBackwards bool `json:"went_backwards,omitempty"`
	// Saturated: a PMA counter stands at the top of an 8, 16 or 32-bit
	// range, where IBA counters stop counting; Delta may be short.
	Saturated bool `json:"saturated,omitempty"`
}

// Usable reports whether Delta can be trusted.
func (d Delta) Usable() bool { return !d.WentBackwards && !d.Saturated }

// String gives the delta with its unit, e.g. "hw_counters/sent_pkts +3406 packets".
func (d Delta) String() string {
	s := fmt.Sprintf("%s/%s +%d %s", d.Source, d.Name, d.Delta, d.Unit)
	switch {
	case d.WentBackwards:
		s = fmt.Sprintf("%s/%s went backwards (%d to %d): reset or wrapped", d.Source, d.Name, d.Before, d.After)
	case d.Saturated:
		s += " (saturated: may be short)"
	}
	return s
}

// Deltas are the counter movements of one port over a run.
type Deltas struct {
	Device    string `json:"device"`
	Port      int    `json:"port"`
	Netdev    string `json:"netdev,omitempty"`
	ElapsedNS int64  `json:"elapsed_ns"`
	// Counters are sorted by source, then name.
	Counters []Delta `json:"counters"`
	// Unavailable joins both snapshots' unavailable sources and counters,
	// and the counters only one of them has.
	Unavailable []Unavailable `json:"unavailable,omitempty"`
}

// Diff computes how every counter moved from before to after, both of the
// same device and port.
func Diff(before, after Snapshot) (Deltas, error) {
	if before.Device != after.Device || before.Port != after.Port {
		return Deltas{}, fmt.Errorf("snapshots of %s/%d and %s/%d: want two snapshots of the same device and port",
			before.Device, before.Port, after.Device, after.Port)
	}
	d := Deltas{
		Device: after.Device, Port: after.Port, Netdev: after.Netdev,
		ElapsedNS: after.TakenAt.Sub(before.TakenAt).Nanoseconds(),
	}
	type key struct {
		src  Source
		name string
	}
	old := make(map[key]uint64, len(before.Counters))
	for _, c := range before.Counters {
		old[key{c.Source, c.Name}] = c.Value
	}
	seen := make(map[key]bool, len(after.Counters))
	for _, c := range after.Counters {
		k := key{c.Source, c.Name}
		seen[k] = true
		b, ok := old[k]
		if !ok {
			d.Unavailable = append(d.Unavailable, Unavailable{Source: c.Source, Name: c.Name,
				Reason: ReasonMissing, Detail: "read after the run but not before"})
			continue
		}
		d.Counters = append(d.Counters, delta(c.Source, c.Name, b, c.Value))
	}
	for _, c := range before.Counters {
		if !seen[key{c.Source, c.Name}] {
			d.Unavailable = append(d.Unavailable, Unavailable{Source: c.Source, Name: c.Name,
				Reason: ReasonMissing, Detail: "read before the run but not after"})
		}
	}
	d.Unavailable = append(d.Unavailable, mergeUnavailable(before.Unavailable, after.Unavailable)...)
	sort.SliceStable(d.Counters, func(i, j int) bool {
		a, b := d.Counters[i], d.Counters[j]
		if a.Source != b.Source {
			return sourceRank(a.Source) < sourceRank(b.Source)
		}
		return a.Name < b.Name
	})
	return d, nil
}

// delta computes one counter's movement with its unit.
func delta(src Source, name string, before, after uint64) Delta {
	in := Classify(name)
	d := Delta{Source: src, Name: name, Counter: name, Class: in.Class, Unit: in.Unit, Before: before, After: after}
	if src == SourcePort {
		switch after {
		case math.MaxUint8, math.MaxUint16, math.MaxUint32:
			d.Saturated = true
		}
	}
	if after < before {
		d.WentBackwards = true
	} else {
		d.Delta = after - before
	}
	if in.Words {
		d.Name = name + "_bytes"
		d.Before, d.After, d.Delta = words(before), words(after), words(d.Delta)
	}
	return d
}

// words converts 4-byte words to bytes, saturating.
func words(w uint64) uint64 {
	if w > math.MaxUint64/4 {
		return math.MaxUint64
	}
	return w * 4
}

// mergeUnavailable joins two lists, each entry once.
func mergeUnavailable(a, b []Unavailable) []Unavailable {
	var out []Unavailable
	seen := map[Unavailable]bool{}
	for _, u := range append(append([]Unavailable{}, a...), b...) {
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

// Get returns the delta of the named counter (its own name or the
// unit-carrying one), from the freshest source that has it: netlink, then
// sysfs hw_counters, the PMA counters, device hw_counters, the netdev.
func (d Deltas) Get(name string) (Delta, bool) {
	best, found := Delta{}, false
	for _, c := range d.Counters {
		if c.Name != name && c.Counter != name {
			continue
		}
		if !found || sourceRank(c.Source) < sourceRank(best.Source) {
			best, found = c, true
		}
	}
	return best, found
}

// unique returns the deltas of the RDMA sources (not the netdev), each
// counter once: the netlink and sysfs hw_counters copies of a port counter
// are one counter, taken from netlink (fresh).
func (d Deltas) unique() []Delta {
	var out []Delta
	idx := map[string]int{}
	for _, c := range d.Counters {
		if c.Source == SourceNetdev {
			continue
		}
		key := string(c.Source) + "/" + c.Name
		if c.Source == SourceNetlink || c.Source == SourcePortHW {
			key = "port/" + c.Name
		}
		i, ok := idx[key]
		switch {
		case !ok:
			idx[key] = len(out)
			out = append(out, c)
		case sourceRank(c.Source) < sourceRank(out[i].Source):
			out[i] = c
		}
	}
	return out
}

// Important returns what a report should show: the packet and byte
// counters, and every retransmission, error or congestion counter that
// moved or cannot be trusted, each counter once (freshest source).
func (d Deltas) Important() []Delta {
	var out []Delta
	for _, c := range d.unique() {
		traffic := c.Class == ClassTraffic && (c.Unit == UnitPackets || c.Unit == UnitBytes)
		moved := (c.Class.Moves() || c.Class == ClassCongestion) && (c.Delta > 0 || !c.Usable())
		if traffic || moved {
			out = append(out, c)
		}
	}
	return out
}
