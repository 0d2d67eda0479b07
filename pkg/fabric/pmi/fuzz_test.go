package pmi

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// FuzzParseLine checks that ParseLine never panics, that what it accepts
// has a cmd and keys without spaces or '=', and that the attributes
// written back as a line parse to the same.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		"cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0",
		"cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024",
		"cmd=get_result rc=0 value=host:1=2",
		"cmd=get_result rc=1 msg=key_not_found",
		"cmd=barrier_out",
		"cmd= rc=0",
		"=x cmd=a",
		"cmd=a\tb=c\r",
		"cmd=a cmd=b",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		attrs, err := ParseLine(line)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error text")
			}
			return
		}
		if attrs["cmd"] == "" {
			t.Fatalf("%q: accepted without cmd", line)
		}
		var words []string
		for _, k := range slices.Sorted(maps.Keys(attrs)) {
			if k == "" || strings.ContainsAny(k, "= \t\n\r") {
				t.Fatalf("%q: key %q", line, k)
			}
			words = append(words, k+"="+attrs[k])
		}
		again, err := ParseLine(strings.Join(words, " "))
		if err != nil || !maps.Equal(again, attrs) {
			t.Fatalf("%q: written back as %q parses to %v, %v; want %v", line, strings.Join(words, " "), again, err, attrs)
		}
	})
}
