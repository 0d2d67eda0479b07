package document

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// Kinds of result.
const (
	KindLatency   = "latency"
	KindBandwidth = "bandwidth"
)

// Statuses of a result or run.
const (
	StatusOK           = "ok"
	StatusPartial      = "partial"
	StatusInsufficient = "insufficient"
)

// Result is one point of a document: its merged figures and its runs.
type Result struct {
	Workload   string `json:"workload"`
	Transport  string `json:"transport"`
	Completion string `json:"completion"`
	// Kind is [KindLatency] or [KindBandwidth].
	Kind       string `json:"kind"`
	SizeBytes  int    `json:"size_bytes"`
	Iterations int    `json:"iterations"`
	Figures
	// LatencyExact is true for raw-sample statistics, false for histogram
	// ones; nil without latency figures.
	LatencyExact *bool    `json:"latency_exact,omitempty"`
	OutOfRange   int64    `json:"out_of_range"`
	BwPeakGbps   *float64 `json:"bw_peak_gbps"`
	Received     uint64   `json:"received"`
	CPU          CPUPair  `json:"cpu"`
	// Validation is "passed" or "failed ..." when --validate ran.
	Validation    string  `json:"validation,omitempty"`
	Clock         string  `json:"clock"`
	ClockSampleNS float64 `json:"clock_sample_ns"`
	Peer          *Peer   `json:"peer,omitempty"`
	// Counters are the port counters read around the point's runs.
	Counters *Counters `json:"counters,omitempty"`
	// OpenLoop is what an open-loop run at a fixed offered rate (params
	// rate) measured beside its latency; nil for a closed loop.
	OpenLoop *OpenLoop `json:"open_loop,omitempty"`
	// Loaded is what the loaders of a loaded-latency run (params
	// loaders) streamed beside its latency; nil without loaders.
	Loaded *Loaded `json:"loaded,omitempty"`
	// Expectations are the verdicts of the expectations (--expect) that
	// chose the point, in their order; nil without any.
	Expectations []Expectation `json:"expectations,omitempty"`
	// Params are every parameter of the point, resolved (docs/json.md).
	Params map[string]json.RawMessage `json:"params"`
	// Server is the server's own figures in a two-process run.
	Server *Result `json:"server,omitempty"`
	Runs   []*Run  `json:"runs,omitempty"`

	// Index is the result's position in the document, from 0.
	Index int `json:"-"`
	// RunsRecorded is false for a document from before the runs key: Runs
	// then holds one run made of the result's own figures.
	RunsRecorded bool `json:"-"`
}

// Run is one repetition of a point.
type Run struct {
	// Run numbers the repetitions from 1.
	Run       int       `json:"run"`
	StartedAt time.Time `json:"started_at,omitzero"`
	Figures
}

// Figures are what a result and each of its runs measured. A figure that
// was not measured is nil (null).
type Figures struct {
	// Status is [StatusOK], [StatusPartial] or [StatusInsufficient];
	// Reason says why when it is not ok.
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Clean is false when the port counters say a retransmission or an
	// error happened; nil when no counter was read.
	Clean *bool `json:"clean,omitempty"`
	// Samples are the latency samples; Ops the operations measured.
	Samples   int64  `json:"samples"`
	Ops       uint64 `json:"ops"`
	Bytes     uint64 `json:"bytes"`
	ElapsedNS int64  `json:"elapsed_ns"`
	// LatencyUS is in microseconds; nil without latency data.
	LatencyUS   *Latency `json:"latency_us,omitempty"`
	BwGbps      *float64 `json:"bw_gbps"`
	BwMiBps     *float64 `json:"bw_mibps"`
	MsgRateMpps *float64 `json:"msg_rate_mpps"`
	CPUUSPerOp  Costs    `json:"cpu_us_per_op"`
	CPUSPerGB   Costs    `json:"cpu_s_per_gb"`
	// Histogram is the latency histogram in ns, HdrHistogram's V2
	// compressed encoding in base64; "" without latency data.
	Histogram string `json:"histogram,omitempty"`
}

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

// AtTick is [display.AtTick] of the figures: whether the median sits at
// the scheduler's tick; false without a median or a fastest sample.
func (l *Latency) AtTick() bool {
	return l != nil && l.P50 != nil && l.Min != nil && display.AtTick(*l.P50, *l.Min)
}

// Costs is a CPU cost of the local side, the remote side and both.
type Costs struct {
	Local  *float64 `json:"local"`
	Remote *float64 `json:"remote"`
	// Total is both sides together (local alone in one process).
	Total *float64 `json:"total"`
}

// Both returns the cost of both sides: total, else local (a document
// without total, or a one-process loopback run), else nil.
func (c Costs) Both() *float64 {
	if c.Total != nil {
		return c.Total
	}
	return c.Local
}

// CPUUsage is one side's CPU usage over a run.
type CPUUsage struct {
	// ProcessPctOfCore is process CPU time over wall time, in percent of
	// one core: 100 means one core fully busy, 200 two cores.
	ProcessPctOfCore float64 `json:"process_pct_of_core"`
	// ProcessPctOfAll is ProcessPctOfCore divided by Cores.
	ProcessPctOfAll float64 `json:"process_pct_of_all"`
	// SystemPctOfCore is the whole machine's busy time in percent of one
	// core (100*Cores means every core busy).
	SystemPctOfCore float64 `json:"system_pct_of_core"`
	// SystemPctOfAll is the whole machine's busy share, 0..100.
	SystemPctOfAll float64 `json:"system_pct_of_all"`
	// UserS and SysS are the process's user and system CPU seconds.
	UserS float64 `json:"user_s"`
	SysS  float64 `json:"sys_s"`
	// WallS is the interval's wall-clock length in seconds.
	WallS float64 `json:"wall_s"`
	// Cores is the number of online CPUs.
	Cores int `json:"cores"`
}

// CPUPair is the usage of both sides of a test. Local is measured over the
// client's timed part; Remote over the server's whole run.
type CPUPair struct {
	// Local is this process's usage; nil when not measured.
	Local *CPUUsage `json:"local"`
	// Remote is the peer's usage; nil when unknown or when OneProcess.
	Remote *CPUUsage `json:"remote"`
	// OneProcess is true when both sides ran in one process (loopback):
	// Local then covers both, and there is no Remote.
	OneProcess bool `json:"one_process"`
}

// Counters are the NIC port counters read around a run on both sides, and
// what they say of it. The deltas are kept as their reader wrote them;
// Verdict and Wire are the judgements made from them.
type Counters struct {
	// Clean is true when counters were read on the sides that could and no
	// retransmission or error counter moved; nil when none could be read.
	Clean *bool `json:"clean"`
	// Verdict says "clean", or why not ("not clean: duplicate_request +3
	// packets"), or "counters unavailable: ...".
	Verdict string `json:"verdict"`
	// Wire compares the packets and bytes counted with what the run posted
	// (headers and acknowledgements included); "" when not checked.
	Wire string `json:"wire,omitempty"`
	// Local and Remote are each side's counter deltas.
	Local  json.RawMessage `json:"local,omitempty"`
	Remote json.RawMessage `json:"remote,omitempty"`
}

// Expectation is the verdict of one expectation (--expect) on a point:
// its metric's figure against the limit.
type Expectation struct {
	// Expect is the expectation as written ("size=64K bw>=90%link"),
	// Source where ("--expect", "floors.txt:3").
	Expect string `json:"expect"`
	Source string `json:"source"`
	// Metric is pkg/metric's name ("bw", "lat.p50"), Op one of ">=", ">",
	// "<=", "<", Limit the limit in Unit, the metric's (a share of the
	// link rate already turned into Gb/s).
	Metric string  `json:"metric"`
	Op     string  `json:"op"`
	Limit  float64 `json:"limit"`
	Unit   string  `json:"unit"`
	// Value is the point's figure in Unit; null when it has none.
	Value *float64 `json:"value"`
	// Pass is true when the figure is there and holds.
	Pass bool `json:"pass"`
	// Note says what the limit is made of ("90% of the 100 Gb/s link"),
	// and why there is no verdict on a figure.
	Note string `json:"note,omitempty"`
}

// OpenLoop is what an open-loop latency run measured beside its headline
// latency (which runs from each operation's due time): operations were
// issued on a fixed schedule at RateOPS a second.
type OpenLoop struct {
	RateOPS     int      `json:"rate_ops"`
	AchievedOPS *float64 `json:"achieved_ops"`
	Issued      uint64   `json:"issued"`
	Behind      uint64   `json:"behind"`
	// ServiceUS is each operation's time from its post to its completion;
	// LagUS its time from when it was due to its post.
	ServiceUS *Latency `json:"service_us"`
	LagUS     *Latency `json:"lag_us"`
	// The histograms in ns, encoded like the headline's.
	ServiceHistogram string `json:"service_histogram,omitempty"`
	LagHistogram     string `json:"lag_histogram,omitempty"`
}

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

// IsTCP says whether the result is a TCP baseline (package catalog).
func (r *Result) IsTCP() bool { return catalog.IsTCP(r.Workload, r.Transport) }

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
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return strconv.FormatInt(int64(x), 10) // 1048576, not 1.048576e+06
		}
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

// Text says an expectation's verdict in words, as every view
// writes it: "bw>=90%link failed: 0.561 Gb/s, want >= 9 Gb/s (90% of the
// 10 Gb/s link)".
func (x Expectation) Text() string {
	verdict, got := "met", "no figure"
	if !x.Pass {
		verdict = "failed"
	}
	if x.Value != nil {
		got = display.Significant(*x.Value, 4) + " " + x.Unit
	}
	s := fmt.Sprintf("%s %s: %s, want %s %s %s", x.Expect, verdict, got, x.Op, display.Significant(x.Limit, 4), x.Unit)
	if x.Note != "" {
		s += " (" + x.Note + ")"
	}
	return s
}

// FailedExpectations are the verdicts of xs that failed, in words.
func FailedExpectations(xs []Expectation) []string {
	var out []string
	for _, x := range xs {
		if !x.Pass {
			out = append(out, x.Text())
		}
	}
	return out
}

// Loaded is what the loaders of a loaded-latency run streamed on the same
// device while its latency was measured: Loaders QPs, a thread each,
// running Workload (the latency workload's bandwidth counterpart)
// unlimited.
type Loaded struct {
	Loaders  int    `json:"loaders"`
	Workload string `json:"workload"`
	// Ops is the operations they completed in ElapsedS seconds (from the
	// first loader's first post to the last one's last completion); BwGbps
	// the bandwidth of them all together (null when nothing was timed).
	Ops      uint64   `json:"ops"`
	ElapsedS float64  `json:"elapsed_s"`
	BwGbps   *float64 `json:"bw_gbps"`
}

// LoadedCurve is the verdict on one loaded-latency curve: a point
// measured at one offered rate beside several loader levels.
type LoadedCurve struct {
	Workload  string `json:"workload"`
	SizeBytes int    `json:"size_bytes"`
	RateOPS   int    `json:"rate_ops"`
	// Levels are the loader counts, ascending; KneeLoaders is the level
	// of the knee, null for none.
	Levels      []int  `json:"levels"`
	KneeLoaders *int   `json:"knee_loaders"`
	Summary     string `json:"summary"`
}
