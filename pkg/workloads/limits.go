package workloads

import (
	"fmt"

	"github.com/rdma-bench/rdma-bench/pkg/engine"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// DeviceLimits are what the local RDMA device allows, for the checks and
// defaults that depend on it.
type DeviceLimits struct {
	Name      string
	MaxQPWR   int
	MaxCQE    int
	MaxMRSize uint64
	MaxInline int // for the transport at hand
	ActiveMTU int
	MaxRdAtom int
	Atomics   bool
	// PostEx: the device creates QPs for the extended post API for the
	// workload's operation.
	PostEx bool
	// FirmwareVersion is the device's, for the report.
	FirmwareVersion string
	// ODP is the device's on-demand paging support, read only when
	// Local.ODP asks for it.
	ODP verbs.ODPCaps
}

// Resolve resolves s (see point.Spec.Resolve) on this host: dev, when
// not nil, is the local device, and the clock bounds --rate.
func Resolve(s point.Spec, dev *DeviceLimits) (point.Resolved, []string, error) {
	return s.Resolve(dev.Limits())
}

// Limits are what resolution needs of this host: the device's MTU (d
// may be nil: no device) and the clock's bound on --rate.
func (d *DeviceLimits) Limits() point.Limits {
	lim := point.Limits{CheckRate: CheckRate}
	if d != nil {
		lim.ActiveMTU = d.ActiveMTU
	}
	return lim
}

// CheckRate refuses a rate above what the clock can schedule
// (engine.MaxRate); 0, no rate, passes.
func CheckRate(rate int) error {
	if max := engine.MaxRate(); rate > max {
		clk := engine.CurrentClock()
		return fmt.Errorf("--rate %d: above what the clock can schedule here (%s, %.0f ns a reading): at most %d operations per second",
			rate, clk.Source, clk.SampleNS, max)
	}
	return nil
}
