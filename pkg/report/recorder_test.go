package report

import (
	"math"
	"testing"
	"time"
)

func TestRecorderCountsOutOfRange(t *testing.T) {
	rec := NewLatencyRecorder()
	rec.RecordChunk([]int64{0, -5, int64(time.Hour) + 1, math.MaxInt64, 1, int64(time.Hour), 5000})
	if got := rec.OutOfRange(); got != 4 {
		t.Errorf("out of range = %d, want 4", got)
	}
	if got := rec.Count(); got != 3 {
		t.Errorf("count = %d, want 3", got)
	}
	if got := rec.Histogram().TotalCount(); got != 3 {
		t.Errorf("histogram count = %d, want 3", got)
	}
	r := &Result{}
	rec.Fill(r)
	if r.OutOfRange != 4 || r.Moments == nil || r.Moments.MinNS != 1 || r.Moments.MaxNS != int64(time.Hour) {
		t.Errorf("filled %+v moments %+v", r, r.Moments)
	}
	l := mustLatency(t, r)
	if l.MaxNS != float64(time.Hour) || l.MinNS != 1 || l.Count != 3 {
		t.Errorf("stats %+v", l)
	}
}

func TestRecorderMerge(t *testing.T) {
	a, b := wideSamples(3000, 1000, 21), wideSamples(5000, 3000, 22)
	all := NewLatencyRecorder()
	all.RecordChunk(a)
	all.RecordChunk(b)
	all.Record(-1)

	ra, rb := NewLatencyRecorder(), NewLatencyRecorder()
	ra.RecordChunk(a)
	rb.RecordChunk(b)
	rb.Record(-1)
	ra.Merge(rb)
	ra.Merge(nil)
	ra.Merge(NewLatencyRecorder())

	if !ra.hist.Equals(all.hist) {
		t.Error("merged histogram differs")
	}
	if rb.Count() != 5000 || rb.OutOfRange() != 1 {
		t.Error("merge changed its source")
	}
	ma, mall := ra.Moments(), all.Moments()
	if ma.Count != mall.Count || ma.MinNS != mall.MinNS || ma.MaxNS != mall.MaxNS ||
		!near(ma.MeanNS, mall.MeanNS, 1e-12) || !near(ma.StdevNS(), mall.StdevNS(), 1e-9) {
		t.Errorf("merged moments %+v, want %+v", ma, mall)
	}
	if ra.OutOfRange() != 1 {
		t.Errorf("out of range = %d, want 1", ra.OutOfRange())
	}
	mean, stdev := refMeanStdev(append(append([]int64{}, a...), b...))
	if !near(ma.MeanNS, mean, 1e-12) || !near(ma.StdevNS(), stdev, 1e-9) {
		t.Errorf("merged mean %v stdev %v, want %v %v", ma.MeanNS, ma.StdevNS(), mean, stdev)
	}
}

func TestRecorderSnapshotAndReset(t *testing.T) {
	rec := NewLatencyRecorder()
	rec.RecordChunk([]int64{100, 200, 0})
	snap := rec.Snapshot()
	rec.Record(300)
	if snap.Count() != 2 || snap.OutOfRange() != 1 || snap.hist.TotalCount() != 2 {
		t.Errorf("snapshot changed with its source: %d %d", snap.Count(), snap.OutOfRange())
	}
	rec.Reset()
	if rec.Count() != 0 || rec.OutOfRange() != 0 || rec.hist.TotalCount() != 0 || rec.Moments() != (Moments{}) {
		t.Error("reset left data")
	}
	if snap.Count() != 2 {
		t.Error("reset changed the snapshot")
	}
}

func TestMomentsJitter(t *testing.T) {
	var m Moments
	for _, v := range []int64{1000, 1001, 1000, 1001} {
		m.Add(v)
	}
	if m.StdevNS() != 0.5 || m.MeanNS != 1000.5 {
		t.Errorf("stdev %v mean %v, want 0.5 1000.5", m.StdevNS(), m.MeanNS)
	}
	if (Moments{}).StdevNS() != 0 {
		t.Error("empty stdev not 0")
	}
}

func TestZeroRecorderIsUsable(t *testing.T) {
	var z LatencyRecorder
	z.Record(1500)
	var other LatencyRecorder
	z.Merge(&other)
	r := &Result{}
	z.Fill(r)
	if l := mustLatency(t, r); l.Count != 1 || l.MaxNS != 1500 {
		t.Errorf("stats %+v", l)
	}
	var empty LatencyRecorder
	if got := FormatInterval(Counters{Latency: &empty}, Counters{ElapsedNS: 1e9, Latency: &LatencyRecorder{}}); got !=
		"[ 1.0s] interval: 0.00 Gb/s 0.000 Mpps p50 - us | cumulative: 0.00 Gb/s 0.000 Mpps p50 - us" {
		t.Errorf("got %q", got)
	}
}
