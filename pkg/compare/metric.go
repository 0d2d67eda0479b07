package compare

import "github.com/rdma-bench/rdma-bench/pkg/metric"

// Metric names a measured quantity, its unit and which way is better:
// package metric's table, the one vocabulary of compare, gate, the charts
// and fabric.
type Metric = metric.Metric

// The metrics rdma-bench reports, in display order (package metric).
var (
	LatP50   = metric.LatP50
	LatP99   = metric.LatP99
	LatP99_9 = metric.LatP99_9
	BW       = metric.BW
	MsgRate  = metric.MsgRate
	CPUPerOp = metric.CPUPerOp
	CPUPerGB = metric.CPUPerGB
)

// Metrics returns the known metrics in display order.
func Metrics() []Metric { return metric.All() }

// LookupMetric returns the known metric called name.
func LookupMetric(name string) (Metric, error) { return metric.Lookup(name) }
