package compare

import (
	"fmt"
	"strings"
)

// Metric names a measured quantity, its unit and which way is better.
type Metric struct {
	// Name is the metric's short name, such as "lat.p50".
	Name string
	// Unit is the unit of the values, such as "us" or "Gb/s".
	Unit string
	// HigherIsBetter is true for throughput-like metrics (bandwidth,
	// message rate) and false for costs (latency, CPU per operation).
	HigherIsBetter bool
}

// The metrics rdma-bench reports, in display order.
var (
	// LatP50 is the median latency in microseconds.
	LatP50 = Metric{Name: "lat.p50", Unit: "us"}
	// LatP99 is the 99th percentile latency in microseconds.
	LatP99 = Metric{Name: "lat.p99", Unit: "us"}
	// LatP99_9 is the 99.9th percentile latency in microseconds.
	LatP99_9 = Metric{Name: "lat.p99_9", Unit: "us"}
	// BW is the average bandwidth in gigabits per second.
	BW = Metric{Name: "bw", Unit: "Gb/s", HigherIsBetter: true}
	// MsgRate is the message rate in millions of packets per second.
	MsgRate = Metric{Name: "msgrate", Unit: "Mpps", HigherIsBetter: true}
	// CPUPerOp is the CPU time spent per operation, in microseconds.
	CPUPerOp = Metric{Name: "cpu.op", Unit: "us/op"}
	// CPUPerGB is the CPU time spent per gigabyte moved, in seconds.
	CPUPerGB = Metric{Name: "cpu.gb", Unit: "s/GB"}
)

var knownMetrics = []Metric{LatP50, LatP99, LatP99_9, BW, MsgRate, CPUPerOp, CPUPerGB}

// Metrics returns the known metrics in display order.
func Metrics() []Metric {
	return append([]Metric(nil), knownMetrics...)
}

// LookupMetric returns the known metric called name.
func LookupMetric(name string) (Metric, error) {
	for _, m := range knownMetrics {
		if m.Name == name {
			return m, nil
		}
	}
	return Metric{}, fmt.Errorf("unknown metric %q (known: %s)", name, knownMetricNames())
}

func knownMetricNames() string {
	names := make([]string, len(knownMetrics))
	for i, m := range knownMetrics {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}
