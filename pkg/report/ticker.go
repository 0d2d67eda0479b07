package report

import (
	"io"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// Ticker paces the live figures of one measuring loop (--report-interval):
// the loop yields when the next tick is due (the time Start and the
// recording methods return), hands over what it completed, and the ticker
// prints the interval's and the cumulative figures through an
// [IntervalReporter]. Times are on the caller's clock, in nanoseconds. A
// nil *Ticker does nothing and asks for no yield (0).
type Ticker struct {
	every, next, start int64
	rep                *IntervalReporter
	rec                *LatencyRecorder
	shared             bool // rec is the run's own recorder, fed by the run
	ops                uint64
}

// NewTicker returns a ticker printing to w every period, or nil when
// period is not positive or w is nil.
func NewTicker(period time.Duration, w io.Writer) *Ticker {
	if period <= 0 || w == nil {
		return nil
	}
	return &Ticker{every: period.Nanoseconds(), rep: NewIntervalReporter(w)}
}

// Stream makes the ticker hand each tick's figures to fn too (-o ndjson).
func (t *Ticker) Stream(fn func(interval, cumulative document.IntervalFigures)) {
	if t != nil {
		t.rep.OnTick = fn
	}
}

// Share makes the ticker read the run's own recorder (duration mode), fed
// by the run, instead of recording every sample a second time.
func (t *Ticker) Share(rec *LatencyRecorder) {
	if t != nil && rec != nil {
		t.rec, t.shared = rec, true
	}
}

// Start begins the timed phase at now (after the warm-up) and returns
// the first tick.
func (t *Ticker) Start(now int64) int64 {
	if t == nil {
		return 0
	}
	t.start, t.next, t.ops = now, now+t.every, 0
	return t.next
}

// Latency takes a chunk of latency samples (ns) of size-byte operations,
// completed by now, and returns the next tick.
func (t *Ticker) Latency(samples []int64, size int, now int64) int64 {
	if t == nil {
		return 0
	}
	if !t.shared {
		if t.rec == nil {
			t.rec = NewLatencyRecorder()
		}
		t.rec.RecordChunk(samples)
	}
	t.ops += uint64(len(samples))
	return t.due(size, now)
}

// Ops takes the count of size-byte operations completed since Start, as of
// now, and returns the next tick.
func (t *Ticker) Ops(ops uint64, size int, now int64) int64 {
	if t == nil {
		return 0
	}
	t.ops = ops
	return t.due(size, now)
}

// Resume moves the next tick past now (after a print that took longer
// than the period) and returns it.
func (t *Ticker) Resume(now int64) int64 {
	if t == nil {
		return 0
	}
	for t.next <= now {
		t.next += t.every
	}
	return t.next
}

// due prints the figures when the tick has passed, and returns the next.
func (t *Ticker) due(size int, now int64) int64 {
	if now < t.next {
		return t.next
	}
	c := Counters{ElapsedNS: now - t.start, Ops: t.ops, Bytes: t.ops * uint64(size)}
	if t.rec != nil {
		c.Latency = t.rec
	}
	// Live figures are best effort: a failed write to stderr must not
	// end the measurement.
	_ = t.rep.Report(c)
	for t.next <= now {
		t.next += t.every
	}
	return t.next
}
