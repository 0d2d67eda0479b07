package point

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
)

// Param is one shared parameter: its row of the parameter table (package
// catalog, which owns its flag, keys, bounds, role and the workloads it
// applies to) bound to its field of Spec.
type Param struct {
	catalog.Param
	field func(*Spec) any
}

// params are the table's shared parameters, in its order, each bound to
// its field (a row without one is caught by TestEverySpecFieldIsDeclared
// and binds to nothing).
var params = bind()

func bind() []*Param {
	var out []*Param
	for _, row := range catalog.Params() {
		if row.Key == "" {
			continue
		}
		f := fields[row.Key]
		if f == nil {
			f = func(*Spec) any { return nil }
		}
		out = append(out, &Param{Param: row, field: f})
	}
	return out
}

// Params returns the shared parameters that have a flag, in order.
func Params() []*Param {
	var out []*Param
	for _, p := range params {
		if p.Flag != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParamByFlag finds the shared parameter a flag sets.
func ParamByFlag(flag string) (*Param, bool) {
	for _, p := range params {
		if p.Flag != "" && p.Flag == flag {
			return p, true
		}
	}
	return nil, false
}

// IsBool reports whether the flag is a switch (given without a value).
func (p *Param) IsBool() bool {
	return p.Kind == catalog.ValueBool || p.Kind == catalog.ValueCompletion
}

// Applies reports whether the parameter means anything for w.
func (p *Param) Applies(w catalog.Workload) bool { return p.Param.Applies == nil || p.Param.Applies(w) }

// flagName is how messages name the flag: "-s" or "--validate".
func (p *Param) flagName() string {
	if p.Short != "" {
		return "-" + p.Short
	}
	return "--" + p.Flag
}

// get returns the parameter's value in s, in its wire form.
func (p *Param) get(s *Spec) string {
	switch v := p.field(s).(type) {
	case *string:
		return *v
	case *int:
		return strconv.Itoa(*v)
	case *time.Duration:
		return v.String()
	case *bool:
		if p.Kind == catalog.ValueCompletion {
			return map[bool]string{false: "poll", true: "event"}[*v]
		}
		return strconv.FormatBool(*v)
	}
	panic("workloads: parameter " + p.Key + " has a field of an unknown type")
}

// unsetWire is the wire form of the parameter's unset value.
func (p *Param) unsetWire(s *Spec) string {
	if p.Unset != "" {
		return p.Unset
	}
	switch p.field(s).(type) {
	case *int:
		return "0"
	case *time.Duration:
		return "0s"
	case *bool:
		return "false"
	}
	return ""
}

// isSet reports whether s gives the parameter a value of its own.
func (p *Param) isSet(s *Spec) bool { return p.get(s) != p.unsetWire(s) }

// Only returns s without the parameters that do not apply to w: for a
// suite, whose flags mean something for some of its workloads only.
func (s Spec) Only(w catalog.Workload) Spec {
	r := s
	for _, p := range params {
		if !p.Applies(w) {
			_ = p.setWire(&r, p.unsetWire(&r)) // an unset value always parses
		}
	}
	r.Workload = w.Name
	return r
}

// setWire sets the parameter in s from its wire form (a peer's handshake).
func (p *Param) setWire(s *Spec, v string) error {
	bad := func() error { return fmt.Errorf("peer parameter %s=%q is malformed", p.Key, v) }
	switch f := p.field(s).(type) {
	case *string:
		if p.Kind == catalog.ValueEnum && v != "" && !slices.Contains(p.Choices, v) {
			return bad()
		}
		*f = v
	case *int:
		n, err := strconv.Atoi(v)
		if err != nil {
			return bad()
		}
		*f = n
	case *time.Duration:
		d, err := time.ParseDuration(v)
		if err != nil {
			return bad()
		}
		*f = d
	case *bool:
		if p.Kind == catalog.ValueCompletion {
			if v != "poll" && v != "event" {
				return bad()
			}
			*f = v == "event"
			return nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return bad()
		}
		*f = b
	}
	return nil
}

// setFlag sets the parameter in s from a command-line value, within its
// bounds; the error says what is allowed.
func (p *Param) setFlag(s *Spec, v string) error {
	switch f := p.field(s).(type) {
	case *string:
		if p.Kind != catalog.ValueEnum {
			*f = v
			return nil
		}
		for _, c := range p.Choices {
			if strings.EqualFold(v, c) {
				*f = c
				return nil
			}
		}
		return fmt.Errorf("choose %s", strings.Join(p.Choices, ", "))
	case *int:
		if p.Kind == catalog.ValueSize {
			n, err := ParseSize(v)
			if err != nil {
				return err
			}
			*f = n
			return nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < p.Min || n > p.Max {
			return fmt.Errorf("want a whole number from %d to %d", p.Min, p.Max)
		}
		*f = int(n)
	case *time.Duration:
		secs, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(secs) || secs < 0.001 || secs > 86400 {
			return fmt.Errorf("want seconds from 0.001 to 86400")
		}
		*f = time.Duration(secs * float64(time.Second))
	case *bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
		*f = b
	}
	return nil
}

// Value binds the parameter's flag to s: it satisfies pflag.Value.
func (p *Param) Value(s *Spec) *FlagValue { return &FlagValue{p: p, s: s} }

// FlagValue is a parameter's command-line value, bound to a Spec.
type FlagValue struct {
	p    *Param
	s    *Spec
	list []string // the values of a list, when one was given
}

// String returns the value as given, "" while unset (so that --help
// prints the defaults the usage describes, not sentinels).
func (v *FlagValue) String() string {
	if v == nil || v.s == nil || !v.p.isSet(v.s) {
		return ""
	}
	if v.list != nil {
		return strings.Join(v.list, ",")
	}
	if v.p.Kind == catalog.ValueSeconds {
		return strconv.FormatFloat(v.s.Duration.Seconds(), 'f', -1, 64)
	}
	return v.p.get(v.s)
}

// Set parses a command-line value: for a parameter that takes a list,
// comma-separated values, each checked, none twice; the Spec gets the
// first (Sweep gives them all).
func (v *FlagValue) Set(s string) error {
	if !v.p.List || !strings.Contains(s, ",") {
		v.list = nil
		return v.p.setFlag(v.s, s)
	}
	parts := strings.Split(s, ",")
	seen := map[string]bool{}
	for i, part := range parts {
		part = strings.TrimSpace(part)
		if err := v.p.setFlag(v.s, part); err != nil {
			return fmt.Errorf("%q in the list: %w", part, err)
		}
		w := v.p.get(v.s)
		if seen[w] {
			return fmt.Errorf("%s is in the list twice", w)
		}
		seen[w], parts[i] = true, part
	}
	v.list = parts
	return v.p.setFlag(v.s, parts[0])
}

// IsList reports whether several values were given.
func (v *FlagValue) IsList() bool { return len(v.list) > 1 }

// Sweep returns base once per value of the list given, in order, each with
// that value set; nil when one value (or none) was given.
func (v *FlagValue) Sweep(base Spec) []Spec {
	if !v.IsList() {
		return nil
	}
	out := make([]Spec, 0, len(v.list))
	for _, part := range v.list {
		s := base
		_ = v.p.setFlag(&s, part) // checked by Set
		out = append(out, s)
	}
	return out
}

// Type names the value's kind for --help.
func (v *FlagValue) Type() string {
	return [...]string{"string", "string", "int", "size", "seconds", "bool", "bool"}[v.p.Kind]
}

// Encode returns s's shared parameters keyed as in the handshake.
func (s Spec) Encode() map[string]string {
	m := make(map[string]string, len(params))
	for _, p := range params {
		m[p.Key] = p.get(&s)
	}
	return m
}

// DecodeSpec parses a peer's shared parameters: every key must be there.
func DecodeSpec(m map[string]string) (Spec, error) {
	var s Spec
	for _, p := range params {
		v, ok := m[p.Key]
		if !ok {
			return Spec{}, fmt.Errorf("peer parameters lack %s", p.Key)
		}
		if err := p.setWire(&s, v); err != nil {
			return Spec{}, err
		}
	}
	return s, nil
}

// Explicit returns the wire form of the parameters named by keys, for a
// server that refuses clients asking for other values (keys that are not
// shared parameters are ignored).
func (s Spec) Explicit(keys []string) map[string]string {
	all := s.Encode()
	out := map[string]string{}
	for _, k := range keys {
		if v, ok := all[k]; ok {
			out[k] = v
		}
	}
	return out
}
