package fabric

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParse: a saved document reads back with its pairs' caveats; one
// of another kind or version, or with its members out of order, is
// refused naming the key.
func TestParse(t *testing.T) {
	b, err := json.Marshal(caveatDoc(t))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if m := d.Matrix("write_bw.bw_gbps"); d.PairCount() != 6 || m.Caveat(0, 1) != CaveatUnclean {
		t.Errorf("%d pairs, 0->1 caveat %b: want 6 pairs, 0->1 unclean", d.PairCount(), m.Caveat(0, 1))
	}
	for _, c := range []struct{ from, to, want string }{
		{`"kind":"fabric"`, `"kind":"run"`, `kind "run": want "fabric"`},
		{`"schema_version":1`, `"schema_version":7`, "schema_version 7"},
		{`"rank":1,`, `"rank":5,`, "members[1] is rank 5"},
		{`"pairs":[`, `"pairs":{"x":[`, "fabric document: "},
	} {
		bad := strings.Replace(string(b), c.from, c.to, 1)
		if bad == string(b) {
			t.Fatalf("%s not in the document", c.from)
		}
		if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.to, err, c.want)
		}
	}
}
