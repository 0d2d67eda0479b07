package gate

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// SchemaVersion is the layout version of the gate's document.
const SchemaVersion = 2

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
	// Kind is [document.KindGate] and SchemaVersion [SchemaVersion]: the
	// keys of a [document.Envelope], declared here because a gate's
	// document writes kind first.
	Kind          string        `json:"kind"`
	SchemaVersion int           `json:"schema_version"`
	Tool          document.Tool `json:"tool"`
	StartedAt     time.Time     `json:"started_at"`
	Args          []string      `json:"args,omitempty"`
	Settings      Settings      `json:"settings"`
	Base          Side          `json:"base"`
	Candidate     Side          `json:"candidate"`
	Rows          []*Row        `json:"rows"`
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
	// PairsAs is how each pair's two runs were made: [PairsOverlapped]
	// or [PairsInTurn]; PairsAsWhy says why they were not overlapped.
	PairsAs    string `json:"pairs_as,omitempty"`
	PairsAsWhy string `json:"pairs_as_why,omitempty"`
	// RenewSeconds is the time spent replacing the sides' workers between
	// rounds (--worker-rounds), part of the gate's own time.
	RenewSeconds float64 `json:"renew_seconds,omitempty"`
	// StopReason says why measuring stopped: every row decided, the
	// budget, the most pairs.
	StopReason string `json:"stop_reason,omitempty"`
	// Load is what other processes took of the machine meanwhile.
	Load *Load `json:"load,omitempty"`
}

// Settings are the gate's decision settings, as applied.
type Settings struct {
	Target           []string `json:"target"`
	LatencyIters     int      `json:"latency_iters"`
	BandwidthSeconds float64  `json:"bandwidth_seconds"`
	Method           Method   `json:"method"`
	Alpha            float64  `json:"alpha"`
	// Schedule is the pairs of every scheduled look: FirstLook, grown by
	// LookGrowth, up to MaxPairs. Horizon is the spending's
	// (compare.Spending): the pairs the budget allowed every point, from
	// the warm-up; 0 when the gate stopped before.
	Schedule   []int   `json:"schedule"`
	FirstLook  int     `json:"first_look"`
	LookGrowth float64 `json:"look_growth"`
	MaxPairs   int     `json:"max_pairs"`
	Horizon    int     `json:"horizon"`
	// WorkerRounds is --worker-rounds: the rounds a worker serves.
	WorkerRounds  int      `json:"worker_rounds"`
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
	// BaseClean and CandidateClean are each pair's counter verdict of
	// that side's run (false: the port counters moved; null: not read),
	// PairAtSeconds when the pair began, from the gate's start: what
	// telling retransmitting runs and drift from a side's bias needs.
	BaseClean      []*bool   `json:"base_clean"`
	CandidateClean []*bool   `json:"candidate_clean"`
	PairAtSeconds  []float64 `json:"pair_at_s"`
	// Unclean counts the runs, of both sides, whose port counters moved
	// (retransmissions); AtTick the latency runs at the scheduler tick.
	Unclean int `json:"unclean_runs"`
	AtTick  int `json:"tick_runs"`
	// Looks are the decisions at each look, in order; AlphaSpent is the
	// one-sided error they spent of the row's share.
	Looks      []Look  `json:"looks"`
	AlphaSpent float64 `json:"alpha_spent"`
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
	// PairP10Pct and PairP90Pct are the 10th and 90th percentiles of the
	// per-pair changes (candidate/base - 1, in percent) at the last look:
	// the noise the gate works against. ReachPct is the smallest
	// regression the row's pairs, as spread, could fail about 4 times in
	// 5 by the end of the budget (compare.Reach), projected at that look
	// from the pairs the budget left allows; null when unbounded.
	PairP10Pct float64         `json:"pair_p10_pct"`
	PairP90Pct float64         `json:"pair_p90_pct"`
	ReachPct   compare.HiBound `json:"reach_pct"`
	// PairSeconds is the wall time of the row's pairs, both runs.
	PairSeconds float64 `json:"pair_seconds"`

	threshold compare.Threshold
	metric    metric.Metric
}

// Look is one look at a row: the one-sided error it spent and the
// two-sided confidence of its interval; Final when it spent the rest of
// the row's share (the budget or the most pairs reached).
type Look struct {
	Pairs       int              `json:"pairs"`
	Alpha       float64          `json:"alpha"`
	Confidence  float64          `json:"confidence"`
	Final       bool             `json:"final,omitempty"`
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
