// Package perftestflags is the table of perftest's flags (ib_*_bw,
// ib_*_lat) and what rdma-bench makes of each, and the translation of a
// command line written with perftest's spellings into rdma-bench's.
package perftestflags

import (
	"slices"
	"strings"
)

// Action is what rdma-bench does with one of perftest's flags.
type Action int

const (
	// Same: rdma-bench has the spelling, with perftest's meaning.
	Same Action = iota
	// Alias: rewritten to rdma-bench's flag, its value translated.
	Alias
	// Noop: accepted and ignored, with a note saying why it changes
	// nothing.
	Noop
	// Hint: refused as an unknown flag, saying what rdma-bench offers
	// instead.
	Hint
	// Kept: accepted, passed to no flag, and kept in the document's
	// args, where an output reads it; a note says which.
	Kept
)

// Flag is one of perftest's flags (ib_*_bw, ib_*_lat) and what
// rdma-bench makes of it.
type Flag struct {
	Short  string // perftest's letter; "" for none
	Long   string // perftest's long name
	Value  bool   // takes a value
	Action Action
	To     string            // Same, Alias: rdma-bench's long flag
	Values map[string]string // Alias: perftest's value -> rdma-bench's (any case); others pass as given
	Set    string            // Alias of a switch: the value it gives rdma-bench's flag
	// Format, for an alias, is rdma-bench's value with %s for
	// perftest's (-y 10: --expect msgrate>=10Mpps).
	Format string
	Why    string // Noop: why it changes nothing; Kept: what reads it; Hint: what to use instead; else a difference, if any
	// Also are perftest's other spellings of the option: its --help's
	// and its parser's disagree for two (-z, -H).
	Also []string
	// Accepts, for an alias, tells the values rdma-bench can take; one it
	// cannot is refused with Why (a HintError).
	Accepts func(v string) bool
	// Collides names rdma-bench's flag of the same spelling and another
	// meaning; Looks tells perftest's values of it, so that a refused
	// value there gets this row's hint.
	Collides string
	Looks    func(v string) bool
}

// Long and Short find a row by perftest's spelling.
func Long(name string) *Flag {
	for i := range Table {
		if Table[i].Long == name || slices.Contains(Table[i].Also, name) {
			return &Table[i]
		}
	}
	return nil
}

func Short(c string) *Flag {
	for i := range Table {
		if Table[i].Short == c {
			return &Table[i]
		}
	}
	return nil
}

// Collision is the hint for a value rdma-bench's flag refused
// that is one of perftest's for its flag of the same spelling (-o 16:
// perftest's outstanding reads); "" when there is none.
func Collision(flag, value string) string {
	for _, e := range Table {
		if e.Collides == flag && e.Looks(value) {
			return "perftest's " + e.Spelling() + " " + value + "? " + e.Why
		}
	}
	return ""
}

// Spelling is how perftest writes the flag: "-o/--outs" or "--odp".
func (e *Flag) Spelling() string {
	if e.Short != "" {
		return "-" + e.Short + "/--" + e.Long
	}
	return "--" + e.Long
}

// Translate is perftest's value v as rdma-bench's.
func (e *Flag) Translate(v string) string {
	if e.Format != "" {
		return strings.ReplaceAll(e.Format, "%s", v)
	}
	for from, to := range e.Values {
		if strings.EqualFold(v, from) {
			return to
		}
	}
	return v
}
