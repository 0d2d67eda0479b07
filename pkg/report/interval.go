package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// Counters is the cumulative state of a running measurement at one tick.
type Counters struct {
	// ElapsedNS is the time since the measurement started.
	ElapsedNS int64
	// Ops and Bytes are the operations and bytes completed so far.
	Ops, Bytes uint64
	// Latency is the cumulative latency so far (e.g. a
	// [LatencyRecorder.Snapshot]); nil when latency is not measured.
	Latency *LatencyRecorder
}

// IntervalReporter prints one progress line per tick: the rates over the
// last interval and since the start. It keeps its own copy of the previous
// tick, so the caller may reuse the recorder it passes.
type IntervalReporter struct {
	w io.Writer
	// OnTick, when set, takes each tick's figures too, as a streamed
	// document's interval record holds them (-o ndjson).
	OnTick func(interval, cumulative document.IntervalFigures)
	prev   Counters
	// prevLat holds prev's latency: the cumulative latency at the last
	// tick, copied in place so that a tick allocates no histogram for it.
	prevLat *LatencyRecorder
}

// NewIntervalReporter returns a reporter writing to w.
func NewIntervalReporter(w io.Writer) *IntervalReporter {
	return &IntervalReporter{w: w}
}

// Report prints the line for the tick cur.
func (r *IntervalReporter) Report(cur Counters) error {
	line := FormatInterval(r.prev, cur)
	if r.OnTick != nil {
		r.OnTick(IntervalFiguresOf(r.prev, cur))
	}
	r.prev = cur
	if cur.Latency != nil {
		if r.prevLat == nil {
			r.prevLat = NewLatencyRecorder()
		}
		r.prevLat.copyFrom(cur.Latency)
		r.prev.Latency = r.prevLat
	}
	if _, err := io.WriteString(r.w, line+"\n"); err != nil {
		return fmt.Errorf("interval report: %w", err)
	}
	return nil
}

// FormatInterval formats the progress line for the tick cur following prev
// (the zero Counters for the first tick), e.g.
//
//	[ 3.0s] interval: 92.41 Gb/s 11.281 Mpps p50 1.203 us | cumulative: 91.88 Gb/s 11.216 Mpps p50 1.201 us
//
// The p50 parts appear when cur has latency, "-" when an interval has none.
func FormatInterval(prev, cur Counters) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%4.1fs] interval: ", float64(cur.ElapsedNS)/1e9)
	writeRates(&b, cur.ElapsedNS-prev.ElapsedNS, sub(cur.Ops, prev.Ops), sub(cur.Bytes, prev.Bytes))
	if cur.Latency != nil {
		writeP50(&b, intervalHistogram(prev.Latency, cur.Latency), nil)
	}
	b.WriteString(" | cumulative: ")
	writeRates(&b, cur.ElapsedNS, cur.Ops, cur.Bytes)
	if cur.Latency != nil {
		writeP50(&b, cur.Latency.h(), &cur.Latency.moments)
	}
	return b.String()
}

// IntervalFiguresOf are the figures of the tick cur following prev (the
// zero Counters for the first): over the interval, and since the start.
// The latency figures are those FormatInterval prints the median of.
func IntervalFiguresOf(prev, cur Counters) (interval, cumulative document.IntervalFigures) {
	interval = spanFigures(cur.ElapsedNS-prev.ElapsedNS, sub(cur.Ops, prev.Ops), sub(cur.Bytes, prev.Bytes))
	cumulative = spanFigures(cur.ElapsedNS, cur.Ops, cur.Bytes)
	if cur.Latency != nil {
		interval.LatencyUS = spanLatency(intervalHistogram(prev.Latency, cur.Latency), nil)
		cumulative.LatencyUS = spanLatency(cur.Latency.h(), &cur.Latency.moments)
	}
	return interval, cumulative
}

func spanFigures(elapsedNS int64, ops, bytes uint64) document.IntervalFigures {
	f := document.IntervalFigures{Seconds: float64(elapsedNS) / 1e9, Ops: ops, Bytes: bytes}
	if elapsedNS > 0 {
		bw, mpps := float64(bytes)*8/f.Seconds/1e9, float64(ops)/f.Seconds/1e6
		f.BwGbps, f.MsgRateMpps = &bw, &mpps
	}
	return f
}

// spanLatency is h's median, p99 and maximum in microseconds, clamped to
// the exact extremes m when known (as writeP50); nulls for an empty h.
func spanLatency(h *hdrhistogram.Histogram, m *Moments) *document.IntervalLatency {
	l := &document.IntervalLatency{}
	if h.TotalCount() == 0 {
		return l
	}
	p50, p99, hi := histMedian(h), h.ValueAtPercentile(99), h.Max()
	if m != nil && m.Count > 0 {
		p50, p99, hi = min(max(p50, m.MinNS), m.MaxNS), min(max(p99, m.MinNS), m.MaxNS), m.MaxNS
	}
	us := func(ns int64) *float64 { v := float64(ns) / 1e3; return &v }
	l.P50, l.P99, l.Max = us(p50), us(p99), us(hi)
	return l
}

func writeRates(b *strings.Builder, elapsedNS int64, ops, bytes uint64) {
	if elapsedNS <= 0 {
		b.WriteString("- Gb/s - Mpps")
		return
	}
	secs := float64(elapsedNS) / 1e9
	fmt.Fprintf(b, "%s Gb/s %s Mpps", display.BWAverage.Cell(float64(bytes)*8/secs/1e9, 0), display.Figure(float64(ops)/secs/1e6, 3))
}

// writeP50 writes the median of h: the highest value equivalent to it
// (3 significant digits), clamped to the exact extremes m when known, as
// [Summarize] does, so the cumulative median matches the final report.
func writeP50(b *strings.Builder, h *hdrhistogram.Histogram, m *Moments) {
	if h.TotalCount() == 0 {
		b.WriteString(" p50 - us")
		return
	}
	p50 := histMedian(h)
	if m != nil && m.Count > 0 {
		p50 = min(max(p50, m.MinNS), m.MaxNS)
	}
	fmt.Fprintf(b, " p50 %s us", display.LatP50.Cell(float64(p50)/1e3, 0))
}

// histMedian returns the nearest-rank median of the non-empty h, the same
// value as histPercentiles for ppmP50, without building h's distribution
// (a slice of every bucket up to the largest value, about 1.5 MB for
// microsecond latencies with a millisecond tail, at each tick): the rank
// hdrhistogram takes for the 50th percentile of n values, int64(n/2+0.5),
// is ceil(n/2), the nearest rank (exact in float64 below 2^53 values), and
// it returns the highest value equivalent to that sample.
func histMedian(h *hdrhistogram.Histogram) int64 {
	return h.ValueAtPercentile(50)
}

// intervalHistogram returns the latency recorded between prev and cur, both
// cumulative (prev may be nil).
func intervalHistogram(prev, cur *LatencyRecorder) *hdrhistogram.Histogram {
	if prev == nil {
		return cur.h()
	}
	c, p := cur.h().Export(), prev.h().Export()
	for i := range c.Counts {
		if i < len(p.Counts) {
			c.Counts[i] = max(c.Counts[i]-p.Counts[i], 0)
		}
	}
	return hdrhistogram.Import(c)
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}
