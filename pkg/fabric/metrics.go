package fabric

import (
	"slices"
	"strings"
)

// The headline figures of a pair, one set per workload, are named
// WORKLOAD.SUFFIX ("write_lat.p50_us"). The unit suffix gives the
// outliers' direction (MetricDirection).
const (
	MetricP50     = "p50_us"        // a latency workload's median, µs
	MetricP99     = "p99_us"        // a latency workload's p99, µs
	MetricBw      = "bw_gbps"       // a bandwidth workload's bandwidth, Gb/s
	MetricMsgRate = "msg_rate_mpps" // a bandwidth workload's message rate, Mpps
)

// metricInfo describes a headline figure: the part of its name after the
// workload, what it is, and its unit.
type metricInfo struct {
	suffix, what, unit string
}

var (
	latencyMetrics = []metricInfo{
		{MetricP50, "p50 latency", "µs"},
		{MetricP99, "p99 latency", "µs"},
	}
	bandwidthMetrics = []metricInfo{
		{MetricBw, "bandwidth", "Gb/s"},
		{MetricMsgRate, "message rate", "Mpps"},
	}
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
// latency") and its unit ("µs"); the name itself, and no unit, for a
// metric of another name.
func DescribeMetric(metric string) (what, unit string) {
	workload, suffix, _ := strings.Cut(metric, ".")
	for _, m := range slices.Concat(latencyMetrics, bandwidthMetrics) {
		if m.suffix == suffix {
			return workload + " " + m.what, m.unit
		}
	}
	return metric, ""
}
