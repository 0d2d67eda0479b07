package workloads

import (
	"errors"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// --odp is refused before anything is allocated, from the device's
// capabilities (fakes here): naming what the device lacks, or, where it
// has it all, as untested.
func TestCheckODP(t *testing.T) {
	all := verbs.ODPSend | verbs.ODPRecv | verbs.ODPWrite | verbs.ODPRead | verbs.ODPAtomic
	for _, tc := range []struct {
		workload, transport string
		caps                verbs.ODPCaps
		want                string
		untested            bool
	}{
		{"write_lat", "RC", verbs.ODPCaps{}, "rxe0 has no on-demand paging (its odp_caps.general_caps lacks IBV_ODP_SUPPORT)", false},
		{"write_bw", "RC", verbs.ODPCaps{Supported: true, RC: verbs.ODPRead}, "over RC lacks write, which write_bw needs (rc_odp_caps: read)", false},
		{"send_bw", "UD", verbs.ODPCaps{Supported: true, RC: all, UD: verbs.ODPSend}, "over UD lacks recv, which send_bw needs (ud_odp_caps: send)", false},
		{"send_lat", "UC", verbs.ODPCaps{Supported: true, RC: all}, "over UC lacks send|recv", false},
		{"read_lat", "RC", verbs.ODPCaps{Supported: true, RC: verbs.ODPWrite}, "lacks read", false},
		{"atomic_bw", "RC", verbs.ODPCaps{Supported: true, RC: verbs.ODPWrite | verbs.ODPRead}, "lacks atomic", false},
		{"write_bw", "RC", verbs.ODPCaps{Supported: true, RC: verbs.ODPWrite}, "not implemented: untested: rxe0 supports on-demand paging for write_bw over RC", true},
	} {
		s := point.NewSpec(tc.workload)
		s.Transport = tc.transport
		if tc.transport == "UD" {
			s.Size = 1024
		}
		r, _, err := Resolve(s, nil)
		if err != nil {
			t.Fatalf("%s: Resolve: %v", tc.workload, err)
		}
		w, _ := catalog.Lookup(tc.workload)
		l := DefaultLocal()
		l.ODP = true
		lim := DeviceLimits{Name: "rxe0", MaxQPWR: 1024, MaxCQE: 1 << 16, MaxMRSize: 1 << 30, MaxInline: 256, ActiveMTU: 4096, Atomics: true, ODP: tc.caps}
		err = CheckDevice(r, l, w, lim)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "--odp: ") {
			t.Errorf("%s over %s with %+v: %v; want %q", tc.workload, tc.transport, tc.caps, err, tc.want)
		}
		if errors.Is(err, ErrODPUntested) != tc.untested {
			t.Errorf("%s: errors.Is(ErrODPUntested) = %t, want %t", tc.workload, !tc.untested, tc.untested)
		}
		l.ODP = false
		if err := CheckDevice(r, l, w, lim); err != nil {
			t.Errorf("%s without --odp: %v", tc.workload, err)
		}
	}
}

func TestCheckODPDevice(t *testing.T) {
	err := CheckODPDevice(DeviceLimits{Name: "rxe0"})
	if err == nil || err.Error() != "--odp: rxe0 has no on-demand paging (its odp_caps.general_caps lacks IBV_ODP_SUPPORT): run without --odp" {
		t.Errorf("no ODP: %v", err)
	}
	err = CheckODPDevice(DeviceLimits{Name: "mlx5_0", ODP: verbs.ODPCaps{Supported: true, RC: verbs.ODPWrite | verbs.ODPRead}})
	if !errors.Is(err, ErrODPUntested) || !strings.Contains(err.Error(), "rc write|read, uc none") {
		t.Errorf("ODP: %v; want untested, naming the caps", err)
	}
}
