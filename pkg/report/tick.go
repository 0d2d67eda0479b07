package report

import "github.com/rdma-bench/rdma-bench/pkg/display"

// AtTick is [display.AtTick] of the statistics; false for nil.
func (l *LatencyStats) AtTick() bool { return l != nil && display.AtTick(l.P50US(), l.MinUS()) }
