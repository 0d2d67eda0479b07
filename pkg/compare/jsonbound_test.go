package compare

import (
	"encoding/json"
	"math"
	"testing"
)

func TestBoundsJSON(t *testing.T) {
	type iv struct {
		Lo LoBound `json:"lo"`
		Hi HiBound `json:"hi"`
	}
	for _, c := range []struct {
		in   iv
		text string
	}{
		{iv{-1.5, 2.25}, `{"lo":-1.5,"hi":2.25}`},
		{iv{LoBound(math.Inf(-1)), HiBound(math.Inf(1))}, `{"lo":null,"hi":null}`},
	} {
		b, err := json.Marshal(c.in)
		if err != nil || string(b) != c.text {
			t.Fatalf("%+v: %s, %v; want %s", c.in, b, err, c.text)
		}
		var back iv
		if err := json.Unmarshal(b, &back); err != nil || back != c.in {
			t.Fatalf("%s read back as %+v, %v", b, back, err)
		}
	}
	var bad iv
	if err := json.Unmarshal([]byte(`{"lo":"x"}`), &bad); err == nil {
		t.Fatal("a string read as a bound")
	}
}
