package verbs_test

import (
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

func TestODPOpsString(t *testing.T) {
	for _, tc := range []struct {
		ops  verbs.ODPOps
		want string
	}{
		{0, "none"},
		{verbs.ODPSend | verbs.ODPRecv, "send|recv"},
		{verbs.ODPWrite | verbs.ODPRead | verbs.ODPAtomic | verbs.ODPSRQRecv, "write|read|atomic|srq_recv"},
	} {
		if got := tc.ops.String(); got != tc.want {
			t.Errorf("%#x: %q, want %q", uint32(tc.ops), got, tc.want)
		}
	}
	c := verbs.ODPCaps{Supported: true, RC: verbs.ODPWrite, UC: verbs.ODPSend, UD: verbs.ODPRecv}
	if c.Transport("RC") != verbs.ODPWrite || c.Transport("UC") != verbs.ODPSend || c.Transport("UD") != verbs.ODPRecv || c.Transport("TCP") != 0 {
		t.Errorf("Transport does not pick per_transport_caps: %+v", c)
	}
}

// Integration: the device answers ibv_query_device_ex (soft-RoCE on the
// VM's 6.1 kernel has no on-demand paging).
func TestQueryODP(t *testing.T) {
	ctx := openDevice(t)
	c, err := ctx.QueryODP()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: odp supported %t implicit %t rc %v uc %v ud %v", ctx.Name(), c.Supported, c.Implicit, c.RC, c.UC, c.UD)
	if !c.Supported && c.Implicit {
		t.Errorf("implicit ODP without ODP: %+v", c)
	}
}
