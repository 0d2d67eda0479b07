package exchange

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ParamMismatch is one parameter the two sides disagree on.
type ParamMismatch struct {
	Key, Local, Peer string
}

// ParamMismatchError lists every parameter the two sides disagree on,
// sorted by key.
type ParamMismatchError struct {
	Mismatches []ParamMismatch
}

// Error lists every mismatch as "KEY: local L, peer P", separated by "; ".
func (e *ParamMismatchError) Error() string {
	var b strings.Builder
	b.WriteString("parameter mismatch: ")
	for i, m := range e.Mismatches {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: local %s, peer %s", quoteIfNeeded(m.Key), quoteIfNeeded(m.Local), quoteIfNeeded(m.Peer))
	}
	return b.String()
}

// Is reports whether target is ErrParamMismatch.
func (e *ParamMismatchError) Is(target error) bool { return target == ErrParamMismatch }

// CheckParams compares the parameters present on both sides and returns a
// *ParamMismatchError naming every key whose values differ, sorted, as in
// "parameter mismatch: size: local 64, peer 4096; workload: local
// write_lat, peer read_lat". Keys present on one side only are not
// compared.
func CheckParams(local, peer map[string]string) error {
	var ms []ParamMismatch
	for k, lv := range local {
		if pv, ok := peer[k]; ok && pv != lv {
			ms = append(ms, ParamMismatch{Key: k, Local: lv, Peer: pv})
		}
	}
	if len(ms) == 0 {
		return nil
	}
	slices.SortFunc(ms, func(a, b ParamMismatch) int { return strings.Compare(a.Key, b.Key) })
	return &ParamMismatchError{Mismatches: ms}
}

// quoteIfNeeded quotes s when it is empty or could be misread in the
// mismatch list.
func quoteIfNeeded(s string) string {
	if s == "" || !utf8.ValidString(s) || strings.ContainsAny(s, ",;:\"") || strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || !unicode.IsPrint(r)
	}) >= 0 {
		return strconv.Quote(s)
	}
	return s
}
