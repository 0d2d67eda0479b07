package report

import (
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/point"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Params are the settings of one measured point, as given by the user or
// chosen by the engine. They are echoed verbatim in every output.
type Params struct {
	// Workload names the test, e.g. "write_lat", "read_bw", "tcp_lat".
	Workload string `json:"workload"`
	// Transport is the transport service: "RC", "UC", "UD" or "TCP".
	Transport string `json:"transport"`
	// Completion is how completions are awaited: "poll" or "event".
	Completion string `json:"completion"`
	// SizeBytes is the message size in bytes.
	SizeBytes int `json:"size_bytes"`
	// Iterations is the number of measured iterations; 0 in duration mode.
	Iterations int `json:"iterations"`
	// DurationS is the measured duration in seconds in duration mode, else 0.
	DurationS float64 `json:"duration_s"`
	// Warmup is the number of unmeasured warm-up iterations.
	Warmup int `json:"warmup"`
	// TxDepth is the send queue depth (outstanding work requests).
	TxDepth int `json:"tx_depth"`
	// RxDepth is the receive queue depth.
	RxDepth int `json:"rx_depth"`
	// CQMod is the number of work requests per signalled completion.
	CQMod int `json:"cq_mod"`
	// PostList is the number of work requests posted per post call.
	PostList int `json:"post_list"`
	// InlineBytes is the maximum inline payload in bytes.
	InlineBytes int `json:"inline_bytes"`
	// QPs is the number of queue pairs (or connections).
	QPs int `json:"qps"`
	// Threads is the number of worker threads.
	Threads int `json:"threads"`
	// MTU is the path MTU in bytes.
	MTU int `json:"mtu"`
	// Bidir is true for bidirectional tests.
	Bidir bool `json:"bidir"`
	// Imm is true when immediate data is sent with each message.
	Imm bool `json:"imm"`
	// Atomic names the atomic operation ("fadd", "cswap"), if any.
	Atomic string `json:"atomic,omitempty"`
	// Validate is true when the payloads were patterned and checked.
	Validate bool `json:"validate"`
	// RDMACM is true when rdma_cm connected the queue pairs.
	RDMACM bool `json:"rdma_cm"`
	// Rate is the offered rate of an open loop (or a bandwidth run's
	// rate limit), in operations per second; 0 for a closed loop.
	Rate int `json:"rate"`
	// Loaders is how many loader QPs streamed beside a latency loop
	// (--loaders); 0 for none.
	Loaders int `json:"loaders,omitempty"`
	// PostAPI is how this side posted: "ex" (ibv_wr_*) or "classic"
	// (ibv_post_send); "" for TCP.
	PostAPI string `json:"post_api,omitempty"`
	// SRQ is true when receives went through shared receive queues.
	SRQ bool `json:"srq,omitempty"`
	// Mcast is true when the sends went to multicast groups (UD).
	Mcast bool `json:"mcast,omitempty"`
	// McastGroups are the groups' GIDs: the server's receiving queue
	// pairs' (the client sends to them), then the client's (the server
	// sends to them: latency and -b).
	McastGroups []string `json:"mcast_groups,omitempty"`
	// PageBytes is the size of the pages behind the registered buffers:
	// point.HugePageBytes (2 MiB) with --use-hugepages, else the host's
	// page size (4 KiB, 16 or 64 KiB on some arm64 hosts); 0 for TCP.
	PageBytes int `json:"page_bytes,omitempty"`
	// GIDIndex is the GID table index used for addressing.
	GIDIndex int `json:"gid_index"`
	// Device is the local device name, e.g. "mlx5_0"; empty for TCP.
	Device string `json:"device"`
	// Port is the local device port number.
	Port int `json:"port"`
	// Extra holds workload-specific settings not covered above.
	Extra map[string]string `json:"extra,omitempty"`
}

// ParamsOf is the parameters a result reports for s, as asked or as
// resolved; what the run chose or the device gave (the MTU, the inline
// size, the posting API, the device) is filled in by the side that ran.
func ParamsOf(s point.Spec) Params {
	var p Params
	p.Workload, p.Transport, p.Completion, p.SizeBytes = s.Workload, s.Transport, s.Completion(), s.Size
	p.Iterations, p.DurationS, p.Warmup = s.Iterations, s.Duration.Seconds(), s.Warmup
	p.TxDepth, p.RxDepth, p.CQMod, p.PostList = s.TxDepth, s.RxDepth, s.CQMod, s.PostsPerCall()
	p.QPs, p.Threads, p.Bidir, p.Imm, p.Atomic = max(s.QPs, 1), s.ThreadCount(), s.Bidir, s.Imm, s.Atomic
	p.Validate, p.RDMACM, p.Rate, p.SRQ, p.Mcast = s.Validate, s.RDMACM, s.Rate, s.SRQ, s.Mcast
	p.Loaders = s.Loaders
	if w, _ := catalog.Lookup(s.Workload); w.Family == catalog.RDMA {
		p.PageBytes = s.PageBytes()
	}
	return p
}

// Kind tells what a result measures, and so how it is tabulated
// (package catalog).
type Kind = catalog.Kind

// Kinds (package catalog).
const (
	KindUnknown = catalog.KindUnknown
	Latency     = catalog.Latency
	Bandwidth   = catalog.Bandwidth
)

// Statuses of a result.
const (
	// StatusOK: the point was measured as asked.
	StatusOK = "ok"
	// StatusPartial: the run was cut short (the peer failed, an
	// interruption); the figures cover what was measured until then.
	StatusPartial = "partial"
	// StatusInsufficient: the timed part completed too little to give a
	// figure (no operation, or no elapsed time).
	StatusInsufficient = "insufficient"
)

// Result is what the engine measured for one point. Every field is plain
// data; [Summarize] derives the statistics.
type Result struct {
	Params

	// Kind tells whether this is a latency or a bandwidth result.
	Kind Kind
	// Status is StatusOK, StatusPartial or StatusInsufficient; Reason
	// says why when it is not ok.
	Status string
	Reason string
	// Validation is "" when --validate was not asked for, else "passed"
	// or "failed: " and what was wrong.
	Validation string
	// Clock names the timestamps' source ("monotonic_raw" or "tsc") and
	// ClockSampleNS the median cost of one sample (timestamp and store).
	Clock         string
	ClockSampleNS float64
	// Peer describes the server the client ran against; nil in loopback.
	Peer *Peer
	// Received counts the receive completions (or TCP messages) taken.
	Received uint64

	// SamplesNS holds the raw latency samples in nanoseconds (iteration
	// mode). When non-empty, latency statistics are computed exactly from
	// it. May be nil.
	SamplesNS []int64
	// Hist is the latency histogram in nanoseconds (duration mode), used
	// when SamplesNS is empty. May be nil; when both are empty the result
	// has no latency statistics. Build it with a [LatencyRecorder].
	Hist *hdrhistogram.Histogram
	// RawNS, in duration mode, holds every sample recorded in Hist when
	// they were asked for (--samples); the statistics still come from
	// Hist. Nil otherwise.
	RawNS []int64
	// Moments holds the exact count, min, max, mean and deviation of the
	// values recorded in Hist, kept by a [LatencyRecorder] alongside it.
	// When nil, those figures are derived from Hist (3 significant digits).
	Moments *Moments
	// OutOfRange counts latency samples that could not be recorded in Hist
	// (below 1 ns or above 1 hour); they are in no statistic.
	OutOfRange int64

	// Bytes is the payload of the timed operations, in bytes: Ops times
	// the size, one direction (a ping-pong's iteration counts its ping;
	// bidirectional bandwidth counts both directions).
	Bytes uint64
	// Ops is the number of completed operations (messages).
	Ops uint64
	// ElapsedNS is the timed span in nanoseconds: for bandwidth from the
	// first post to the last completion (the denominator of bandwidth and
	// message rate), for latency from the first timed iteration's start to
	// the last one's end; 0 when unknown.
	ElapsedNS int64
	// PeakBandwidthGbps is the engine's peak bandwidth in 10^9 bit/s, 0 if
	// unknown.
	PeakBandwidthGbps float64

	// CPU is the CPU usage of both sides during the measurement.
	CPU CPUPair

	// Server holds the server side's own figures, when it reported them.
	// If CPU.Remote is nil, Server.CPU.Local is used as the remote usage.
	Server *Result

	// Open holds an open-loop run's schedule and its service time and
	// lag; nil for a closed loop.
	Open *OpenLoop

	// Loaded is what the loaders of a loaded-latency run (--loaders)
	// streamed beside the latency loop; nil without loaders.
	Loaded *Loaded

	// Counters are the NIC counters read around the run; nil when not
	// read (TCP, or --counters=false).
	Counters *NICCounters

	// Expectations are the verdicts of the expectations (--expect) that
	// chose the point, set once its runs are merged; nil without any.
	Expectations []document.Expectation

	// Runs are the repetitions of a point measured several times
	// (--repeat), in the order measured; the result's own figures merge
	// them (see [Merge]). Nil for a single run.
	Runs []*Result
	// StartedAt is when the run started.
	StartedAt time.Time
}
