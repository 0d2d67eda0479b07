package main

import (
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// perftestArgs rewrites perftest's spellings in args as rdma-bench's, by
// the table (perftestFlags): an alias becomes its rdma-bench flag, its
// value translated (-A FETCH_AND_ADD: --atomic fadd); a no-op is dropped,
// with a note saying why; a flag rdma-bench does not have is refused with
// the table's hint. rdma-bench's own flags, and their values, pass as
// given, and so does everything after "--" and what neither knows (for
// pflag to refuse).
func perftestArgs(fs *pflag.FlagSet, args []string) (out, notes []string, err error) {
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
			e := perftestLong(name)
			if e == nil {
				out = append(out, a)
				continue
			}
			if !hasV && e.value && e.action != ptHint {
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
			rest, note, err := perftestShorts(fs, a, next, &out)
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

// perftestShorts reads one token of short flags ("-bS" or "-n5"),
// appending what it gives to out. A perftest letter rdma-bench lacks
// ends the cluster there: rest is "-" and what follows, to read again.
func perftestShorts(fs *pflag.FlagSet, a string, next func() (string, bool), out *[]string) (rest, note string, err error) {
	for j := 1; j < len(a); j++ {
		c := a[j : j+1]
		if f := fs.ShorthandLookup(c); f != nil {
			if f.NoOptDefVal != "" {
				continue // a switch: the cluster goes on
			}
			e := perftestShort(c)
			if e == nil || e.values == nil || e.to != f.Name {
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
				*out = append(*out, e.translate(v))
			}
			return "", "", nil
		}
		e := perftestShort(c)
		if e == nil {
			*out = append(*out, a) // for pflag to refuse
			return "", "", nil
		}
		if j > 1 {
			*out = append(*out, a[:j])
			return "-" + a[j:], "", nil
		}
		v, hasV := strings.TrimPrefix(a[2:], "="), len(a) > 2
		if !hasV && e.value && e.action != ptHint {
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
func (e *perftestFlag) apply(fs *pflag.FlagSet, out []string, spelled, v string, hasV bool) ([]string, string, error) {
	with := func(flag string) []string {
		if hasV {
			return append(out, flag+"="+e.translate(v))
		}
		return append(out, flag)
	}
	switch e.action {
	case ptAlias:
		if fs.Lookup(e.to) != nil && e.set != "" {
			return append(out, "--"+e.to+"="+e.set), "", nil
		}
		if fs.Lookup(e.to) != nil {
			return with("--" + e.to), "", nil
		}
	case ptNoop:
		return out, spelled + " (perftest's) ignored: " + e.why, nil
	case ptHint:
		return nil, "", usageError("unknown flag %s (perftest's): %s", spelled, e.why)
	}
	return with(spelled), "", nil // rdma-bench's own spelling, or pflag's to refuse
}

// isBenchFlagSet tells whether fs has the flags of addBenchFlags (its
// device flag marks them).
func isBenchFlagSet(fs *pflag.FlagSet) bool { return fs.Lookup("ib-dev") != nil }
