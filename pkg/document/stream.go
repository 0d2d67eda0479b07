package document

import "time"

// The records of a streamed document (-o ndjson, docs/json.md "The
// streamed document"): one JSON object a line, its type in "type". A run
// writes one start record, an interval record at each --report-interval
// tick and a point record as each run of a point ends, then the whole
// document; a run killed on the way leaves the lines written so far.
const (
	RecordStart    = "start"
	RecordInterval = "interval"
	RecordPoint    = "point"
	RecordDocument = "document"
)

// StreamStart opens the stream: the document's context, before anything
// is measured.
type StreamStart struct {
	Type          string    `json:"type"` // RecordStart
	SchemaVersion int       `json:"schema_version"`
	Tool          Tool      `json:"tool"`
	Host          Host      `json:"host"`
	Device        *Device   `json:"device,omitempty"`
	Label         string    `json:"label,omitempty"`
	Repeat        int       `json:"repeat"`
	StartedAt     time.Time `json:"started_at"`
	Args          []string  `json:"args"`
	// Runs is how many point records will follow when nothing fails:
	// points times repeat.
	Runs int `json:"runs"`
}

// StreamInterval is one tick of the live figures of a run.
type StreamInterval struct {
	Type      string `json:"type"` // RecordInterval
	Workload  string `json:"workload"`
	SizeBytes int    `json:"size_bytes"`
	// RateOPS is the point's offered rate (--rate); 0 for a closed loop.
	RateOPS int `json:"rate_ops,omitempty"`
	// Run numbers the repetition of the point from 1 (--repeat).
	Run int `json:"run"`
	// Interval covers the time since the last tick, Cumulative the time
	// since the timed part started.
	Interval   IntervalFigures `json:"interval"`
	Cumulative IntervalFigures `json:"cumulative"`
}

// IntervalFigures are the figures of a span of a running measurement.
type IntervalFigures struct {
	Seconds float64 `json:"seconds"`
	Ops     uint64  `json:"ops"`
	Bytes   uint64  `json:"bytes"`
	// BwGbps and MsgRateMpps are null for a span with no time.
	BwGbps      *float64 `json:"bw_gbps"`
	MsgRateMpps *float64 `json:"msg_rate_mpps"`
	// LatencyUS is the span's median, 99th percentile and maximum, for
	// latency workloads; its figures are null when the span has no
	// sample.
	LatencyUS *IntervalLatency `json:"latency_us,omitempty"`
}

// IntervalLatency is a span's latency in microseconds.
type IntervalLatency struct {
	P50 *float64 `json:"p50"`
	P99 *float64 `json:"p99"`
	Max *float64 `json:"max"`
}

// StreamPoint is one run of one point, as it ended: the result as the
// final document holds a point measured once.
type StreamPoint struct {
	Type string `json:"type"` // RecordPoint
	// Run numbers the repetition from 1; Of is --repeat.
	Run    int     `json:"run"`
	Of     int     `json:"of"`
	Result *Result `json:"result"`
}

// StreamDocument ends the stream: the whole document, as -o json writes
// it.
type StreamDocument struct {
	Type     string    `json:"type"` // RecordDocument
	Document *Document `json:"document"`
}
