package compare

import "github.com/rdma-bench/rdma-bench/pkg/metric"

// Metric names a measured quantity, its unit and which way is better:
// package metric's table, the one vocabulary of compare, gate, the charts
// and fabric.
type Metric = metric.Metric
