// Package metric is rdma-bench's one table of metrics: each figure that
// compare, gate, the charts and fabric work on, with its name, unit,
// which way is better, what it means, the document figure it is read
// from, and which points it applies to. It is cgo-free.
package metric

import (
	"fmt"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// Applies says which points a metric belongs to.
type Applies int

// What a metric applies to.
const (
	LatencyPoints   Applies = iota + 1 // ping-pong latency points
	BandwidthPoints                    // streaming bandwidth points
	AllPoints
)

// Metric names a measured quantity.
type Metric struct {
	// Name is the metric's short name, such as "lat.p50": what --metrics,
	// --fail-on and the comparison rows say.
	Name string
	// Unit is the unit of the values, such as "us" or "Gb/s".
	Unit string
	// HigherIsBetter is true for throughput-like metrics (bandwidth,
	// message rate) and false for costs (latency, CPU per operation).
	HigherIsBetter bool
	// What says what the metric is, for captions: "p50 latency".
	What string
	// Axis titles a chart's axis of the metric, its unit as a reader
	// writes it: "p50 latency (µs)".
	Axis string
	// Key names the figure, unit included, in a fabric pair's figures:
	// the workload, a dot and the key ("write_lat.p50_us",
	// "write_bw.bw_gbps"). The run document spells some figures without
	// it: "bw_gbps" is the same, the median is "p50" inside "latency_us".
	Key string
	// Percentile is the latency percentile the metric is (50, 99, 99.9);
	// 0 for a metric that is not one.
	Percentile float64
	// For is the kind of point the metric belongs to. A ping-pong's CPU
	// per GB is its CPU per operation over the size, the same verdict
	// twice, so it belongs to bandwidth points only.
	For Applies
}

// The metrics, in display order.
var (
	LatP50   = Metric{Name: "lat.p50", Unit: "us", What: "p50 latency", Axis: "p50 latency (µs)", Key: "p50_us", Percentile: 50, For: LatencyPoints}
	LatP99   = Metric{Name: "lat.p99", Unit: "us", What: "p99 latency", Axis: "p99 latency (µs)", Key: "p99_us", Percentile: 99, For: LatencyPoints}
	LatP99_9 = Metric{Name: "lat.p99_9", Unit: "us", What: "p99.9 latency", Axis: "p99.9 latency (µs)", Key: "p99_9_us", Percentile: 99.9, For: LatencyPoints}
	BW       = Metric{Name: "bw", Unit: "Gb/s", HigherIsBetter: true, What: "bandwidth", Axis: "bandwidth (Gb/s)", Key: "bw_gbps", For: BandwidthPoints}
	MsgRate  = Metric{Name: "msgrate", Unit: "Mpps", HigherIsBetter: true, What: "message rate", Axis: "message rate (Mpps)", Key: "msg_rate_mpps", For: BandwidthPoints}
	CPUPerOp = Metric{Name: "cpu.op", Unit: "us/op", What: "CPU per operation", Axis: "CPU per operation (µs)", Key: "cpu_us_per_op", For: AllPoints}
	CPUPerGB = Metric{Name: "cpu.gb", Unit: "s/GB", What: "CPU per GB", Axis: "CPU per GB (s)", Key: "cpu_s_per_gb", For: BandwidthPoints}
)

var all = []Metric{LatP50, LatP99, LatP99_9, BW, MsgRate, CPUPerOp, CPUPerGB}

// All returns the metrics in display order.
func All() []Metric { return append([]Metric(nil), all...) }

// Lookup returns the metric called name.
func Lookup(name string) (Metric, error) {
	for _, m := range all {
		if m.Name == name {
			return m, nil
		}
	}
	return Metric{}, fmt.Errorf("unknown metric %q (known: %s)", name, Names())
}

// ByKey returns the metric whose [Metric.Key] is key ("p50_us").
func ByKey(key string) (Metric, bool) {
	for _, m := range all {
		if m.Key == key {
			return m, true
		}
	}
	return Metric{}, false
}

// Names lists the metrics' names, comma separated.
func Names() string {
	names := make([]string, len(all))
	for i, m := range all {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

// Value returns the metric's figure in f, in the metric's unit; nil when
// f has none or the metric is not one of the table's. The CPU costs are
// both sides' total, else the local side's.
func (m Metric) Value(f *document.Figures) *float64 {
	l := f.LatencyUS
	if l == nil {
		l = &document.Latency{}
	}
	switch m.Name {
	case LatP50.Name:
		return l.P50
	case LatP99.Name:
		return l.P99
	case LatP99_9.Name:
		return l.P99_9
	case BW.Name:
		return f.BwGbps
	case MsgRate.Name:
		return f.MsgRateMpps
	case CPUPerOp.Name:
		return f.CPUUSPerOp.Both()
	case CPUPerGB.Name:
		return f.CPUSPerGB.Both()
	}
	return nil
}

// AppliesTo says whether the metric belongs to a latency point (latency
// true) or a bandwidth point.
func (m Metric) AppliesTo(latency bool) bool {
	switch m.For {
	case LatencyPoints:
		return latency
	case BandwidthPoints:
		return !latency
	}
	return true
}
