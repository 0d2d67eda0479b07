package results

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// SchemaVersion is the only schema_version this package reads.
const SchemaVersion = 2

// KindRun is the kind of the documents of run and suite.
const KindRun = "run"

// ToolName is the tool.name of an rdma-bench document.
const ToolName = "rdma-bench"

// Document is one saved invocation of rdma-bench run or suite.
type Document struct {
	// Path is the file the document was read from.
	Path          string    `json:"-"`
	SchemaVersion int       `json:"schema_version"`
	Tool          Tool      `json:"tool"`
	Host          Host      `json:"host"`
	Device        *Device   `json:"device"`
	Label         string    `json:"label"`
	Repeat        int       `json:"repeat"`
	StartedAt     time.Time `json:"started_at"`
	Args          []string  `json:"args"`
	Results       []*Result `json:"results"`
	// LoadCurves are the document's verdicts on its latency-against-load
	// curves (points run at several offered rates); nil when none.
	LoadCurves []*LoadCurve `json:"load_curves"`
}

// Tool, Host and Device are the document's own types, as rdma-bench
// writes them.
type (
	Tool   = report.Tool
	Host   = report.Host
	Device = report.Device
)

// Latency holds latency figures in microseconds; nil is null.
type Latency struct {
	Min    *float64 `json:"min"`
	P50    *float64 `json:"p50"`
	P90    *float64 `json:"p90"`
	P99    *float64 `json:"p99"`
	P99_9  *float64 `json:"p99_9"`
	P99_99 *float64 `json:"p99_99"`
	Max    *float64 `json:"max"`
	Mean   *float64 `json:"mean"`
	Stdev  *float64 `json:"stdev"`
}

// Costs is a CPU cost of the local side, the remote side and both.
type Costs struct {
	Local  *float64 `json:"local"`
	Remote *float64 `json:"remote"`
	Total  *float64 `json:"total"`
}

// Both returns the cost of both sides: total, else local (a document
// without total, or a one-process loopback run), else nil.
func (c Costs) Both() *float64 {
	if c.Total != nil {
		return c.Total
	}
	return c.Local
}

// CPUUsage is one side's CPU use during a run; only what this package
// shows is read.
type CPUUsage struct {
	ProcessPctOfCore *float64 `json:"process_pct_of_core"`
}

// CPUPair is both sides' CPU use; Remote is nil in one process
// (loopback), where Local covers both sides.
type CPUPair struct {
	Local      *CPUUsage `json:"local"`
	Remote     *CPUUsage `json:"remote"`
	OneProcess bool      `json:"one_process"`
}

// Figures are what a result and each of its runs measured.
type Figures struct {
	Status      string   `json:"status"`
	Reason      string   `json:"reason"`
	LatencyUS   *Latency `json:"latency_us"`
	Histogram   string   `json:"histogram"`
	BwGbps      *float64 `json:"bw_gbps"`
	BwMiBps     *float64 `json:"bw_mibps"`
	MsgRateMpps *float64 `json:"msg_rate_mpps"`
	CPUUSPerOp  Costs    `json:"cpu_us_per_op"`
	CPUSPerGB   Costs    `json:"cpu_s_per_gb"`
	// Clean is false when the port counters say a retransmission or an
	// error happened; nil when the document does not say.
	Clean *bool `json:"clean"`
	// Ops is the operations measured; Samples the latency samples.
	Ops     uint64 `json:"ops"`
	Samples int64  `json:"samples"`
	// Counters say which counters moved.
	Counters *Counters `json:"counters"`
}

// Counters is what the port counters read around a run say of it.
type Counters struct {
	Verdict string `json:"verdict"`
}

// Run is one repetition of a point.
type Run struct {
	Run       int       `json:"run"`
	StartedAt time.Time `json:"started_at"`
	Figures
}

// Result is one point of a document: its merged figures and its runs.
type Result struct {
	Workload   string `json:"workload"`
	Transport  string `json:"transport"`
	Completion string `json:"completion"`
	Kind       string `json:"kind"`
	SizeBytes  int    `json:"size_bytes"`
	Iterations int    `json:"iterations"`
	Figures
	BwPeakGbps *float64                   `json:"bw_peak_gbps"`
	CPU        CPUPair                    `json:"cpu"`
	Params     map[string]json.RawMessage `json:"params"`
	Runs       []*Run                     `json:"runs"`
	// OpenLoop is what an open-loop run at a fixed offered rate (params
	// rate) measured beside its latency; nil for a closed-loop run.
	OpenLoop *OpenLoop `json:"open_loop"`

	// Index is the result's position in the document, from 0.
	Index int `json:"-"`
	// RunsRecorded is false for a document from before the runs key: Runs
	// then holds one run made of the result's own figures.
	RunsRecorded bool `json:"-"`
}

// Kinds of result.
const (
	KindLatency   = "latency"
	KindBandwidth = "bandwidth"
)

// IsLatency says whether the result measured latency: its kind, or for a
// document without one, whether it has latency figures.
func (r *Result) IsLatency() bool {
	switch r.Kind {
	case KindLatency:
		return true
	case KindBandwidth:
		return false
	}
	return r.LatencyUS != nil
}

// IsTCP says whether the result is a TCP baseline.
func (r *Result) IsTCP() bool {
	return r.Transport == "TCP" || strings.HasPrefix(r.Workload, "tcp_")
}

// Param returns a parameter of params in a canonical text form: a
// string's value, a number as strconv formats it, "true" or "false", the
// compact JSON of anything else; "" when absent or null.
func (r *Result) Param(key string) string {
	raw, ok := r.Params[key]
	if !ok {
		return ""
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	b, err := json.Marshal(v) // maps come out with sorted keys
	if err != nil {
		return string(raw)
	}
	return string(b)
}
