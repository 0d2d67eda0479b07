package gate

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// Kind is the document kind of a gate's document.
const Kind = "gate"

// SchemaVersion is the layout version of the gate's document.
const SchemaVersion = 1

// Status of a gate document.
const (
	StatusComplete = "complete"
	// StatusPartial: the gate stopped before it ended (a failed run, an
	// interrupt); the pairs measured so far are kept.
	StatusPartial = "partial"
)

// Document is everything a gate measured and decided. It is saved after
// every round of pairs, so that a crash keeps what was measured.
type Document struct {
	Kind          string      `json:"kind"`
	SchemaVersion int         `json:"schema_version"`
	Tool          report.Tool `json:"tool"`
	StartedAt     time.Time   `json:"started_at"`
	Args          []string    `json:"args,omitempty"`
	Settings      Settings    `json:"settings"`
	Base          Side        `json:"base"`
	Candidate     Side        `json:"candidate"`
	Rows          []*Row      `json:"rows"`
	// Status is complete or partial; Reason says why a gate is partial.
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Outcome is pass, fail or undecided; ExitCode the command's status.
	Outcome  string  `json:"outcome"`
	ExitCode int     `json:"exit_code"`
	Seconds  float64 `json:"seconds"`
	// Runs counts every run, warm-up included; RunSeconds is their wall
	// time, start to exit: Seconds - RunSeconds is the gate's own time.
	Runs       int     `json:"runs"`
	RunSeconds float64 `json:"run_seconds"`
	// StopReason says why measuring stopped: every row decided, the
	// budget, the most pairs.
	StopReason string `json:"stop_reason,omitempty"`
}

// Settings are the gate's decision settings, as applied.
type Settings struct {
	Target           []string `json:"target"`
	LatencyIters     int      `json:"latency_iters"`
	BandwidthSeconds float64  `json:"bandwidth_seconds"`
	Method           Method   `json:"method"`
	Alpha            float64  `json:"alpha"`
	// Looks is the number of looks that can decide, which the false-alarm
	// budget is split over; Schedule the pairs of every scheduled look.
	Looks     int   `json:"looks"`
	Schedule  []int `json:"schedule"`
	LookEvery int   `json:"look_every"`
	MaxPairs  int   `json:"max_pairs"`
	// Confidence is the two-sided confidence of every interval.
	Confidence    float64  `json:"confidence"`
	BudgetSeconds float64  `json:"budget_seconds"`
	Thresholds    []string `json:"thresholds"`
}

// Row is one gated point: its pairs and its decision.
type Row struct {
	Point     Point  `json:"point"`
	Metric    string `json:"metric"`
	Unit      string `json:"unit"`
	Threshold string `json:"threshold"`
	// Base and Candidate hold each pair's value; BaseFirst whether the
	// base ran first in that pair.
	Base      []float64 `json:"base"`
	Candidate []float64 `json:"candidate"`
	BaseFirst []bool    `json:"base_first"`
	// Unclean counts the runs, of both sides, whose port counters moved
	// (retransmissions); AtTick the latency runs at the scheduler tick.
	Unclean int `json:"unclean_runs"`
	AtTick  int `json:"tick_runs"`
	// Looks are the decisions at each look, in order.
	Looks []Look `json:"looks"`
	// Decision is the row's last decision; Pairs the pairs it took.
	Decision compare.Decision `json:"decision"`
	Pairs    int              `json:"pairs"`
	// BaseMedian and CandidateMedian are each side's median.
	BaseMedian      float64 `json:"base_median"`
	CandidateMedian float64 `json:"candidate_median"`
	// The change at the last look.
	EstimatePct float64         `json:"estimate_pct"`
	LoPct       compare.LoBound `json:"lo_pct"`
	HiPct       compare.HiBound `json:"hi_pct"`
	// DetectablePct is, for an undecided row, the smallest regression its
	// pairs would have caught most of the time ([compare.DetectablePct]);
	// null in JSON when unbounded, absent when decided.
	DetectablePct compare.HiBound `json:"detectable_pct,omitempty"`
	// PairSeconds is the wall time of the row's pairs, both runs.
	PairSeconds float64 `json:"pair_seconds"`

	threshold compare.Threshold
	metric    compare.Metric
}

// Look is one look at a row.
type Look struct {
	Pairs       int              `json:"pairs"`
	EstimatePct float64          `json:"estimate_pct"`
	LoPct       compare.LoBound  `json:"lo_pct"`
	HiPct       compare.HiBound  `json:"hi_pct"`
	Decision    compare.Decision `json:"decision"`
}

// Label names the row in tables: "write_lat 64 B".
func (r *Row) Label() string { return r.Point.String() }

// Encode writes the document as indented JSON.
func (d *Document) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the gate document: %w", err)
	}
	return append(b, '\n'), nil
}
