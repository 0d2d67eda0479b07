package perftestflags

import (
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// Args rewrites perftest's spellings in args as rdma-bench's flags of fs,
// by the table (Table): an alias becomes its rdma-bench flag, its value
// translated (-A FETCH_AND_ADD: --atomic fadd); a no-op is dropped, with
// a note saying why; a flag rdma-bench does not have is refused with the
// table's hint (a *HintError). rdma-bench's own flags, and their values, pass as
// given, and so does everything after "--" and what neither knows (for
// pflag to refuse).
func Args(fs *pflag.FlagSet, args []string) (out, notes []string, err error) {
	args = slices.Clone(args) // split clusters are written back: not the caller's
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, bool) {
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return "", false
		}
		switch {
		case a == "--":
			return append(out, args[i:]...), notes, nil
		case strings.HasPrefix(a, "--"):
			name, v, hasV := strings.Cut(a[2:], "=")
			if f := fs.Lookup(name); f != nil {
				out = append(out, a)
				if !hasV && f.NoOptDefVal == "" {
					if v, ok := next(); ok {
						out = append(out, v)
					}
				}
				continue
			}
			e := Long(name)
			if e == nil {
				out = append(out, a)
				continue
			}
			if !hasV && e.Value && e.Action != Hint {
				v, hasV = next()
			}
			var note string
			if out, note, err = e.apply(fs, out, "--"+name, v, hasV); err != nil {
				return nil, nil, err
			}
			if note != "" {
				notes = append(notes, note)
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			rest, note, err := shorts(fs, a, next, &out)
			if err != nil {
				return nil, nil, err
			}
			if note != "" {
				notes = append(notes, note)
			}
			if rest != "" {
				args[i] = rest // a cluster split at a perftest letter: the rest again
				i--
			}
		default:
			out = append(out, a)
		}
	}
	return out, notes, nil
}

// shorts reads one token of short flags ("-bS" or "-n5"),
// appending what it gives to out. A perftest letter rdma-bench lacks
// ends the cluster there: rest is "-" and what follows, to read again.
func shorts(fs *pflag.FlagSet, a string, next func() (string, bool), out *[]string) (rest, note string, err error) {
	for j := 1; j < len(a); j++ {
		c := a[j : j+1]
		if f := fs.ShorthandLookup(c); f != nil {
			if f.NoOptDefVal != "" {
				continue // a switch: the cluster goes on
			}
			e := Short(c)
			if e == nil || e.Values == nil || e.To != f.Name {
				*out = append(*out, a)
				if j == len(a)-1 {
					if v, ok := next(); ok {
						*out = append(*out, v)
					}
				}
				return "", "", nil
			}
			v, ok := strings.TrimPrefix(a[j+1:], "="), true
			if j == len(a)-1 {
				v, ok = next()
			}
			*out = append(*out, a[:j+1])
			if ok {
				*out = append(*out, e.Translate(v))
			}
			return "", "", nil
		}
		e := Short(c)
		if e == nil {
			*out = append(*out, a) // for pflag to refuse
			return "", "", nil
		}
		if j > 1 {
			*out = append(*out, a[:j])
			return "-" + a[j:], "", nil
		}
		v, hasV := strings.TrimPrefix(a[2:], "="), len(a) > 2
		if !hasV && e.Value && e.Action != Hint {
			v, hasV = next()
		}
		*out, note, err = e.apply(fs, *out, "-"+c, v, hasV)
		return "", note, err
	}
	*out = append(*out, a)
	return "", "", nil
}

// apply appends what perftest's flag, written as spelled with value v
// (when hasV), becomes in rdma-bench's arguments; a no-op gives a note,
// a hint an error.
func (e *Flag) apply(fs *pflag.FlagSet, out []string, spelled, v string, hasV bool) ([]string, string, error) {
	with := func(flag string) []string {
		if hasV {
			return append(out, flag+"="+e.Translate(v))
		}
		return append(out, flag)
	}
	switch e.Action {
	case Alias:
		if e.Accepts != nil && hasV && !e.Accepts(v) {
			return nil, "", &HintError{Flag: spelled, Value: v, Hint: e.Why}
		}
		if fs.Lookup(e.To) != nil && e.Set != "" {
			return append(out, "--"+e.To+"="+e.Set), "", nil
		}
		if fs.Lookup(e.To) != nil {
			return with("--" + e.To), "", nil
		}
	case Noop:
		return out, spelled + " (perftest's) ignored: " + e.Why, nil
	case Kept:
		return out, spelled + " (perftest's) honoured: " + e.Why, nil
	case Hint:
		return nil, "", &HintError{Flag: spelled, Hint: e.Why}
	}
	return with(spelled), "", nil // rdma-bench's own spelling, or pflag's to refuse
}

// HintError refuses one of perftest's flags that rdma-bench does not
// have, or a value of its that rdma-bench cannot take, saying what to
// use instead: bad input.
type HintError struct {
	Flag  string // as spelled: -T, --run_infinitely
	Value string // a value rdma-bench's flag cannot take; "": the flag is refused
	Hint  string // the table's row's Why
}

func (e *HintError) Error() string {
	if e.Value != "" {
		return e.Flag + " " + e.Value + " (perftest's): " + e.Hint
	}
	return "unknown flag " + e.Flag + " (perftest's): " + e.Hint
}
