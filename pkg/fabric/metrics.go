package fabric

import (
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// The headline figures of a pair, one set per workload, are named
// WORKLOAD.KEY ("write_lat.p50_us"), KEY a figure of package metric's
// table, which also gives their direction, what they are and their unit.
var (
	MetricP50     = metric.LatP50.Key  // a latency workload's median, us
	MetricP99     = metric.LatP99.Key  // a latency workload's p99, us
	MetricBw      = metric.BW.Key      // a bandwidth workload's bandwidth, Gb/s
	MetricMsgRate = metric.MsgRate.Key // a bandwidth workload's message rate, Mpps
)

// MatrixMetric is the metric rank 0 prints a matrix of, and checks for
// outliers, for a workload: p50 latency for a latency workload, else
// bandwidth.
func MatrixMetric(workload string, latency bool) string {
	if latency {
		return workload + "." + MetricP50
	}
	return workload + "." + MetricBw
}

// DescribeMetric says what a headline metric is ("write_lat p50
// latency") and its unit ("us"); the name itself, and no unit, for a
// metric of another name.
func DescribeMetric(name string) (what, unit string) {
	workload, key, _ := strings.Cut(name, ".")
	if m, ok := metric.ByKey(key); ok {
		return workload + " " + m.What, m.Unit
	}
	return name, ""
}
