package report

import (
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Latency histogram geometry used by [LatencyRecorder].
const (
	// LatencyMinNS is the smallest recordable latency in nanoseconds.
	LatencyMinNS int64 = 1
	// LatencyMaxNS is the largest recordable latency in nanoseconds.
	LatencyMaxNS = int64(time.Hour)
	// LatencySigFigs is the histogram precision in significant decimal
	// digits: a recorded value is known to within 1/1024 of itself
	// (values below 2048 ns are exact).
	LatencySigFigs = 3
)

// Moments are exact running figures of a set of latency values: count,
// extremes, mean and the sum of squared deviations (Welford's method), so
// that mean and deviation stay exact in float64 while the histogram keeps
// only 3 significant digits.
type Moments struct {
	// Count is the number of values.
	Count int64
	// MinNS and MaxNS are the smallest and largest values (0 when empty).
	MinNS, MaxNS int64
	// MeanNS is the arithmetic mean.
	MeanNS float64
	// M2 is the sum of squared deviations from the mean, in ns².
	M2 float64
}

// Add accounts for one value.
func (m *Moments) Add(ns int64) {
	if m.Count == 0 || ns < m.MinNS {
		m.MinNS = ns
	}
	if m.Count == 0 || ns > m.MaxNS {
		m.MaxNS = ns
	}
	m.Count++
	x := float64(ns)
	d := x - m.MeanNS
	m.MeanNS += d / float64(m.Count)
	m.M2 += d * (x - m.MeanNS)
}

// Merge accounts for all values of o (Chan et al.'s parallel combination).
func (m *Moments) Merge(o Moments) {
	switch {
	case o.Count == 0:
		return
	case m.Count == 0:
		*m = o
		return
	}
	na, nb := float64(m.Count), float64(o.Count)
	n := na + nb
	d := o.MeanNS - m.MeanNS
	m.MeanNS += d * nb / n
	m.M2 += o.M2 + d*d*na*nb/n
	m.Count += o.Count
	m.MinNS = min(m.MinNS, o.MinNS)
	m.MaxNS = max(m.MaxNS, o.MaxNS)
}

// StdevNS returns the population standard deviation, 0 when empty.
func (m Moments) StdevNS() float64 {
	if m.Count == 0 || m.M2 <= 0 {
		return 0
	}
	return math.Sqrt(m.M2 / float64(m.Count))
}

// LatencyRecorder accumulates latency samples in bounded memory: an
// HdrHistogram (1 ns .. 1 hour, 3 significant digits) plus exact [Moments].
// Samples outside that range are counted, never silently dropped.
//
// A LatencyRecorder is not safe for concurrent use: give each thread its own
// and [LatencyRecorder.Merge] them at the end. The zero value is an empty
// recorder too, but [NewLatencyRecorder] allocates up front, off the
// measured path.
type LatencyRecorder struct {
	hist       *hdrhistogram.Histogram
	moments    Moments
	outOfRange int64
	zeroOK     bool // a delay: 0 is a value, not out of range
}

// NewLatencyRecorder returns an empty recorder.
func NewLatencyRecorder() *LatencyRecorder {
	return &LatencyRecorder{hist: newLatencyHistogram()}
}

// NewDelayRecorder returns an empty recorder of a delay that may be 0
// (an open loop's schedule lag): 0 is recorded, not out of range.
func NewDelayRecorder() *LatencyRecorder {
	return &LatencyRecorder{hist: newLatencyHistogram(), zeroOK: true}
}

func newLatencyHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(LatencyMinNS, LatencyMaxNS, LatencySigFigs)
}

// h returns the histogram, allocating it for a zero LatencyRecorder.
func (r *LatencyRecorder) h() *hdrhistogram.Histogram {
	if r.hist == nil {
		r.hist = newLatencyHistogram()
	}
	return r.hist
}

// Record accounts for one latency sample in nanoseconds.
func (r *LatencyRecorder) Record(ns int64) {
	if (ns < LatencyMinNS && !(ns == 0 && r.zeroOK)) || ns > LatencyMaxNS || r.h().RecordValue(ns) != nil {
		r.outOfRange++
		return
	}
	r.moments.Add(ns)
}

// RecordChunk accounts for every sample of ns.
func (r *LatencyRecorder) RecordChunk(ns []int64) {
	for _, v := range ns {
		r.Record(v)
	}
}

// Merge adds everything that from recorded to r; from is unchanged.
func (r *LatencyRecorder) Merge(from *LatencyRecorder) {
	if from == nil {
		return
	}
	r.outOfRange += from.outOfRange + r.h().Merge(from.h())
	r.moments.Merge(from.moments)
}

// Count returns the number of samples recorded (in range).
func (r *LatencyRecorder) Count() int64 { return r.moments.Count }

// OutOfRange returns the number of samples that could not be recorded.
func (r *LatencyRecorder) OutOfRange() int64 { return r.outOfRange }

// Moments returns the exact figures of the recorded samples.
func (r *LatencyRecorder) Moments() Moments { return r.moments }

// Histogram returns an independent copy of the recorded histogram.
func (r *LatencyRecorder) Histogram() *hdrhistogram.Histogram { return r.h().Clone() }

// Snapshot returns an independent copy of the recorder, e.g. to hand the
// cumulative state to an [IntervalReporter] while recording goes on.
func (r *LatencyRecorder) Snapshot() *LatencyRecorder {
	return &LatencyRecorder{hist: r.h().Clone(), moments: r.moments, outOfRange: r.outOfRange, zeroOK: r.zeroOK}
}

// copyFrom makes r an independent copy of from in r's own histogram:
// unlike [LatencyRecorder.Snapshot], it allocates nothing once r has one.
func (r *LatencyRecorder) copyFrom(from *LatencyRecorder) {
	h := r.h()
	h.Reset()
	r.outOfRange = from.outOfRange + h.Merge(from.h())
	r.moments = from.moments
}

// Reset forgets everything recorded.
func (r *LatencyRecorder) Reset() {
	r.h().Reset()
	r.moments = Moments{}
	r.outOfRange = 0
}

// Fill stores the recorded latency in res: Hist (a copy), Moments and
// OutOfRange. SamplesNS is left alone; clear it if it should not win.
func (r *LatencyRecorder) Fill(res *Result) {
	m := r.moments
	res.Hist = r.h().Clone()
	res.Moments = &m
	res.OutOfRange = r.outOfRange
}
