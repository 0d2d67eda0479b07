package fabric

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// Pair statuses in PairOutcome.Status.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// Document statuses in Document.Status.
const (
	// StatusComplete: every scheduled pair is in the document, and every
	// suspect was re-measured.
	StatusComplete = "complete"
	// StatusPartial: the sweep was cut short (rank 0 interrupted); the
	// document holds what was measured until then, Reason says why, and
	// the pairs never reached are absent.
	StatusPartial = "partial"
)

// SchemaVersion is the version of the fabric document's layout.
const SchemaVersion = 1

// Tool names the program that wrote a document, as the run documents do,
// without their commit.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Document is a fabric run's result, gathered at rank 0.
type Document struct {
	// Envelope's SchemaVersion is the layout's version ([SchemaVersion]);
	// its Kind is [document.KindFabric], beside the run documents of run
	// and suite.
	document.Envelope
	// Tool names the program: rank 0's version (every rank runs the same).
	Tool Tool `json:"tool"`
	// Launcher is how the world was found (Launcher* constants).
	Launcher string `json:"launcher"`
	// World is rank 0's world: Size is the number of ranks.
	World World `json:"world"`
	// Rendezvous is how rank 0 was found (Method* constants).
	Rendezvous string `json:"rendezvous"`
	// Workloads are the workloads measured on each pair.
	Workloads []string `json:"workloads,omitempty"`
	// Params are the run's parameters, the same on every rank.
	Params map[string]string `json:"params,omitempty"`
	// Schedule is the pattern and its size; each pair names its round.
	Schedule ScheduleInfo `json:"schedule"`
	// Probe marks a probe pass (SweepConfig.Probe): each pair connected
	// and made one round trip of each workload; its figures are single
	// samples, compared with nothing, and no pair is a suspect.
	Probe bool `json:"probe,omitempty"`
	// PairTimeoutNS bounds one pair's measurement.
	PairTimeoutNS int64 `json:"pair_timeout_ns"`
	// StartedAt and FinishedAt bound the sweep.
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	// Status is StatusComplete or StatusPartial; Reason says why a
	// partial sweep stopped.
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Members are the ranks, ordered by rank.
	Members []Member `json:"members"`
	// Pairs are every scheduled pair's outcome, in schedule order.
	Pairs []PairOutcome `json:"pairs"`
	// Departed are the ranks that left the sweep, in the order they did.
	Departed []Departure `json:"departed,omitempty"`
	// ThresholdPct makes a pair a suspect: its figure in the sweep is
	// worse than its metric's median by more than this percentage.
	ThresholdPct float64 `json:"threshold_pct"`
	// Recheck says how the suspects were re-measured; nil when there was
	// no suspect.
	Recheck *RecheckSettings `json:"recheck,omitempty"`
	// Suspects are the suspect pairs, by metric then worst first, each
	// with its re-measurement and decision (see Outliers).
	Suspects []Suspect `json:"suspects"`

	// log holds the pairs instead of Pairs at rank 0, from the sweep to
	// the outputs (see PairLog); nil in a document read back.
	log *PairLog
}

// documentJSON is a Document's JSON without its MarshalJSON.
type documentJSON Document

// MarshalJSON writes the document; at rank 0 its pairs are read back from
// the pair log, all at once (WriteJSON streams them instead).
func (d *Document) MarshalJSON() ([]byte, error) {
	if d.log == nil {
		return json.Marshal((*documentJSON)(d))
	}
	c := *d
	c.log, c.Pairs = nil, make([]PairOutcome, 0, d.log.Len())
	if err := d.log.EachFull(func(p *PairOutcome) error { c.Pairs = append(c.Pairs, *p); return nil }); err != nil {
		return nil, err
	}
	return json.Marshal((*documentJSON)(&c))
}

// EachPair calls fn with every pair, in schedule order: from Pairs, or at
// rank 0 from its pair log, one at a time, without its result, the
// outcome reused from one call to the next (see PairLog.Each). It stops at
// fn's first error and returns it, or the log's.
func (d *Document) EachPair(fn func(*PairOutcome) error) error {
	if d.log != nil {
		return d.log.Each(fn)
	}
	for i := range d.Pairs {
		if err := fn(&d.Pairs[i]); err != nil {
			return err
		}
	}
	return nil
}

// PairCount is the number of pairs measured or failed.
func (d *Document) PairCount() int {
	if d.log != nil {
		return d.log.Len()
	}
	return len(d.Pairs)
}

// FailedCount is the number of pairs that failed.
func (d *Document) FailedCount() int {
	if d.log != nil {
		return d.log.Failed()
	}
	n := 0
	for i := range d.Pairs {
		if !d.Pairs[i].OK() {
			n++
		}
	}
	return n
}

// Err is the first error reading rank 0's pair log back: an output drawn
// from the document since then lacks pairs.
func (d *Document) Err() error {
	if d.log != nil {
		return d.log.Err()
	}
	return nil
}

// Close removes rank 0's pair log, once the outputs are written; a
// document read back has none.
func (d *Document) Close() error {
	if d == nil || d.log == nil {
		return nil
	}
	return d.log.Remove()
}

// ScheduleInfo names a sweep's schedule.
type ScheduleInfo struct {
	Pattern string `json:"pattern"`
	Rounds  int    `json:"rounds"`
	Pairs   int    `json:"pairs"`
	// Rails are the ranks by device name when the schedule is
	// rail-aligned (--rails: the pattern within each rail, no pair
	// across); absent otherwise.
	Rails []Rail `json:"rails,omitempty"`
}

// PairOutcome is one scheduled pair's result or failure.
type PairOutcome struct {
	// Round is the pair's round, 1-based.
	Round int `json:"round"`
	// Src measured against Dst, which served.
	Src int `json:"src"`
	Dst int `json:"dst"`
	// Status is StatusOK or StatusFailed.
	Status string `json:"status"`
	// Error says why a failed pair failed.
	Error string `json:"error,omitempty"`
	// Figures are the pair's headline figures.
	Figures Figures `json:"figures,omitempty"`
	// Result is the Measurer's full result.
	Result json.RawMessage `json:"result,omitempty"`
	// ElapsedNS is how long the measuring side took.
	ElapsedNS int64 `json:"elapsed_ns,omitempty"`

	// caveats are Result's (see Caveats), read once; rank 0's pair log
	// keeps them beside the figures.
	caveats     []Caveat
	caveatsRead bool
}

// Partial reports whether the sweep was cut short: its Status is
// partial, or (a document of an older rdma-bench, without a status) it
// holds fewer pairs than its schedule.
func (d *Document) Partial() bool {
	return d.Status == StatusPartial || d.Status == "" && d.PairCount() < d.Schedule.Pairs
}

// OK reports whether the pair was measured.
func (p *PairOutcome) OK() bool { return p.Status == StatusOK }

// Departure is a rank leaving the sweep: its connection dropped, it fell
// silent, or it broke the protocol.
type Departure struct {
	Rank int `json:"rank"`
	// Round is the round (1-based) in which it left; 0 before the first.
	Round  int    `json:"round"`
	Reason string `json:"reason"`
}

// Figure is one headline figure.
type Figure struct {
	Metric string
	Value  float64
}

// Figures are a pair's headline figures sorted by metric; in JSON an
// object {"metric": value}. A slice keeps a million pairs' figures small.
type Figures []Figure

// Get returns the value of metric.
func (f Figures) Get(metric string) (float64, bool) {
	for _, x := range f {
		if x.Metric == metric {
			return x.Value, true
		}
	}
	return 0, false
}

// MarshalJSON writes the figures as an object in metric order.
func (f Figures) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, x := range f {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(x.Metric)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(x.Value)
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", x.Metric, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an object of figures.
func (f *Figures) UnmarshalJSON(b []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*f = figuresOf(m, nil)
	return nil
}

// figuresOf sorts m into Figures, taking metric names from intern (when
// not nil) so that equal names share one string.
func figuresOf(m map[string]float64, intern map[string]string) Figures {
	if len(m) == 0 {
		return nil
	}
	f := make(Figures, 0, len(m))
	for k, v := range m {
		if intern != nil {
			if s, ok := intern[k]; ok {
				k = s
			} else {
				intern[k] = k
			}
		}
		f = append(f, Figure{Metric: k, Value: v})
	}
	slices.SortFunc(f, func(a, b Figure) int { return strings.Compare(a.Metric, b.Metric) })
	return f
}

// Metrics returns every metric any pair has a figure for, sorted.
func (d *Document) Metrics() []string {
	seen := map[string]bool{}
	if d.log != nil {
		for m := range d.log.metrics {
			seen[m] = true
		}
	}
	for i := range d.Pairs {
		for _, x := range d.Pairs[i].Figures {
			seen[x.Metric] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Failed returns the pairs that failed.
func (d *Document) Failed() []*PairOutcome {
	var out []*PairOutcome
	_ = d.EachPair(func(p *PairOutcome) error {
		if !p.OK() {
			c := *p
			c.Figures = slices.Clone(p.Figures)
			out = append(out, &c)
		}
		return nil
	})
	return out
}

// FailedRechecks returns the suspects whose re-measurement ended on a
// failed pair.
func (d *Document) FailedRechecks() []*Suspect {
	var out []*Suspect
	for i := range d.Suspects {
		if s := &d.Suspects[i]; s.Recheck != nil && s.Recheck.Failed != nil {
			out = append(out, s)
		}
	}
	return out
}

// Outliers returns the suspects their re-measurement confirmed.
func (d *Document) Outliers() []*Suspect {
	var out []*Suspect
	for i := range d.Suspects {
		if s := &d.Suspects[i]; s.Recheck != nil && s.Recheck.Decision == compare.Fail {
			out = append(out, s)
		}
	}
	return out
}
