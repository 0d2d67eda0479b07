package catalog

import "testing"

func TestIdentityCount(t *testing.T) {
	if n := len(IdentityParams()); n != NumIdentity {
		t.Errorf("%d identity parameters, NumIdentity is %d", n, NumIdentity)
	}
}

func TestIsTCP(t *testing.T) {
	for _, c := range []struct {
		workload, transport string
		want                bool
	}{{"tcp_lat", "TCP", true}, {"tcp_bw", "", true}, {"write_lat", "RC", false}, {"future_lat", "TCP", true}, {"future_lat", "RC", false}} {
		if got := IsTCP(c.workload, c.transport); got != c.want {
			t.Errorf("IsTCP(%q, %q) = %v", c.workload, c.transport, got)
		}
	}
}
