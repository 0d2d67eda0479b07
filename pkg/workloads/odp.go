package workloads

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// ErrODPUntested refuses --odp on a device that has what the run needs:
// registering memory for on-demand paging is not implemented, as no
// ODP-capable device was at hand to test it on.
var ErrODPUntested = errors.New("not implemented: untested")

// odpNeeds is what w's memory must support under on-demand paging, on
// both sides (as perftest checks it): the operation, and for SEND its
// receives.
func odpNeeds(w catalog.Workload) verbs.ODPOps {
	switch w.Op {
	case catalog.OpWrite:
		return verbs.ODPWrite
	case catalog.OpRead:
		return verbs.ODPRead
	case catalog.OpAtomic:
		return verbs.ODPAtomic
	}
	return verbs.ODPSend | verbs.ODPRecv
}

// checkODP refuses --odp, naming what the device lacks for s; on a
// device that has it all, with ErrODPUntested.
func checkODP(s point.Resolved, w catalog.Workload, d DeviceLimits) error {
	c := d.ODP
	if !c.Supported {
		return errNoODP(d)
	}
	need, have := odpNeeds(w), c.Transport(s.Transport)
	if missing := need &^ have; missing != 0 {
		return fmt.Errorf("--odp: %s's on-demand paging over %s lacks %v, which %s needs (%s_odp_caps: %v): run without --odp",
			d.Name, s.Transport, missing, w.Name, strings.ToLower(s.Transport), have)
	}
	return fmt.Errorf("--odp: %w: %s supports on-demand paging for %s over %s, but rdma-bench has never registered ODP memory on such a device: run without --odp",
		ErrODPUntested, d.Name, w.Name, s.Transport)
}

func errNoODP(d DeviceLimits) error {
	return fmt.Errorf("--odp: %s has no on-demand paging (its odp_caps.general_caps lacks IBV_ODP_SUPPORT): run without --odp", d.Name)
}

// CheckODPDevice refuses --odp where no workload is known yet (a server
// that serves any): on a device without on-demand paging, and, as
// untested, on one with it.
func CheckODPDevice(d DeviceLimits) error {
	c := d.ODP
	if !c.Supported {
		return errNoODP(d)
	}
	return fmt.Errorf("--odp: %w: %s supports on-demand paging (rc %v, uc %v, ud %v), but rdma-bench has never registered ODP memory on such a device: run without --odp",
		ErrODPUntested, d.Name, c.RC, c.UC, c.UD)
}
