package safetext

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain label":         "plain label",
		"\x1b[2J\x1b]0;pwned": `\x1b[2J\x1b]0;pwned`,
		"two\nlines":          `two\nlines`,
		"bad \xff utf-8":      `bad \xff utf-8`,
		"µs ok":               "µs ok",
	} {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStrings(t *testing.T) {
	type inner struct{ Name string }
	type doc struct {
		Label  string
		Args   []string
		Ptr    *inner
		Params map[string]json.RawMessage
		Tags   map[string]string
		hidden string
	}
	d := &doc{Label: "\x1b[31mred", Args: []string{"ok", "\x07bell"}, Ptr: &inner{"a\rb"},
		Params: map[string]json.RawMessage{"k\x1b": json.RawMessage(`"\u001b"`)},
		Tags:   map[string]string{"t": "\x1b"}, hidden: "\x1b"}
	Strings(d)
	if d.Label != `\x1b[31mred` || d.Args[1] != `\abell` || d.Ptr.Name != `a\rb` || d.Tags["t"] != `\x1b` {
		t.Errorf("not sanitized: %+v %+v", d, d.Ptr)
	}
	if _, ok := d.Params[`k\x1b`]; !ok || string(d.Params[`k\x1b`]) != `"\u001b"` {
		t.Errorf("map keys: %v", d.Params)
	}
	if d.hidden != "\x1b" {
		t.Error("an unexported field was touched")
	}
}

func TestStringsKeepsLongText(t *testing.T) {
	long := struct{ S string }{strings.Repeat("x", 2*MaxLen)}
	Strings(&long)
	if len(long.S) != 2*MaxLen {
		t.Errorf("a long string was cut to %d bytes", len(long.S))
	}
	if got := Sanitize(long.S); len(got) != MaxLen+3 {
		t.Errorf("Sanitize kept %d bytes, want %d", len(got), MaxLen+3)
	}
}
