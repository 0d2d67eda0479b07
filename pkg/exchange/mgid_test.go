package exchange

import (
	"encoding/json"
	"strings"
	"testing"
)

// An endpoint's multicast group is absent from the JSON unless set, and a
// group that is not a multicast address is refused.
func TestEndpointMGID(t *testing.T) {
	e := Endpoint{QPN: 5, PSN: 6, MTU: 1024}
	b, err := json.Marshal(e)
	if err != nil || strings.Contains(string(b), "mgid") {
		t.Errorf("no group: %s, %v", b, err)
	}
	for s, ok := range map[string]bool{"::ffff:239.1.2.3": true, "ff15::9": true, "::ffff:192.0.2.1": false, "fe80::1": false} {
		g, err := ParseGID(s)
		if err != nil {
			t.Fatal(err)
		}
		e.MGID = g
		if err := e.Validate(); (err == nil) != ok {
			t.Errorf("mgid %s: %v", s, err)
		}
		b, _ := json.Marshal(e)
		var back Endpoint
		if err := json.Unmarshal(b, &back); err != nil || back != e || !strings.Contains(string(b), `"mgid":"`+s+`"`) {
			t.Errorf("%s: round trip %s gives %+v, %v", s, b, back, err)
		}
	}
}
