package report

import (
	"io"
	"runtime"
	"testing"
)

// chunkSize is the engine's default sample buffer (engine.Spec's
// SampleCap): a duration-mode ping loop records one chunk of that many
// samples per engine call.
const chunkSize = 1 << 16

// latencyChunk returns chunkSize samples as a soft-RoCE ping-pong gives
// them: mostly 8-12 us, one in a thousand between 50 us and 2 ms.
func latencyChunk(seed uint64) []int64 {
	x := xorshift(seed)
	s := make([]int64, chunkSize)
	for i := range s {
		s[i] = 8_000 + int64(x.next()%4_000)
		if i%1000 == 0 {
			s[i] = 50_000 + int64(x.next()%2_000_000)
		}
	}
	return s
}

// Duration mode folds every chunk into one recorder for the whole run: the
// Go heap must not grow with the run's length, so recording allocates
// nothing, whatever the values.
func TestRecordChunkAllocatesNothing(t *testing.T) {
	chunk := latencyChunk(1)
	outOfRange := []int64{0, -1, LatencyMaxNS + 1, 1 << 62, 5_000}
	for _, tc := range []struct {
		name  string
		rec   *LatencyRecorder
		chunk []int64
	}{
		{"in range", NewLatencyRecorder(), chunk},
		{"out of range", NewLatencyRecorder(), outOfRange},
		{"zero value after its first sample", &LatencyRecorder{}, chunk},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.rec.Record(1_000) // the zero value's histogram, off the measured path
			if got := testing.AllocsPerRun(20, func() { tc.rec.RecordChunk(tc.chunk) }); got != 0 {
				t.Errorf("%v allocations per chunk of %d samples, want 0", got, len(tc.chunk))
			}
		})
	}
}

// A tick of --report-interval copies the cumulative latency and takes two
// medians: none of that may allocate; only the interval histogram does
// (intervalHistogram: two exports and an import).
func TestIntervalTickAllocations(t *testing.T) {
	cur := NewLatencyRecorder()
	cur.RecordChunk(latencyChunk(2))
	prev := NewLatencyRecorder()
	if got := testing.AllocsPerRun(5, func() { prev.copyFrom(cur) }); got != 0 {
		t.Errorf("copyFrom: %v allocations, want 0", got)
	}
	if got := testing.AllocsPerRun(5, func() { histMedian(cur.h()) }); got != 0 {
		t.Errorf("histMedian: %v allocations, want 0", got)
	}

	rep := NewIntervalReporter(io.Discard)
	more := latencyChunk(3)[:1000]
	tick := func(i int) {
		cur.RecordChunk(more)
		if err := rep.Report(Counters{ElapsedNS: int64(i+1) * 1e9, Ops: uint64(i), Latency: cur}); err != nil {
			t.Fatal(err)
		}
	}
	tick(0) // allocates the reporter's own copy
	const ticks = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range ticks {
		tick(i + 1)
	}
	runtime.ReadMemStats(&after)
	perTick := (after.TotalAlloc - before.TotalAlloc) / ticks
	limit := 3*uint64(cur.h().ByteSize()) + 64<<10
	if perTick > limit {
		t.Errorf("%d bytes allocated per tick, want at most %d (three histograms)", perTick, limit)
	}
	t.Logf("%d bytes per tick; one histogram is %d bytes", perTick, cur.h().ByteSize())
}

// The reporter's copy of the previous tick is independent of the
// recorder it was given, which goes on recording.
func TestCopyFromIsIndependent(t *testing.T) {
	src := NewLatencyRecorder()
	src.RecordChunk([]int64{100, 200, 0, 3_000_000})
	dst := NewLatencyRecorder()
	dst.RecordChunk([]int64{7, 7, 7}) // forgotten by the copy
	dst.copyFrom(src)
	src.Record(400)
	want := NewLatencyRecorder()
	want.RecordChunk([]int64{100, 200, 0, 3_000_000})
	if !dst.hist.Equals(want.hist) || dst.Moments() != want.Moments() || dst.OutOfRange() != 1 {
		t.Errorf("copy %+v out of range %d, want %+v 1", dst.Moments(), dst.OutOfRange(), want.Moments())
	}
}

// histMedian must give exactly the nearest-rank median that Summarize
// reports (histPercentiles), for every count: odd, even and large.
func TestHistMedianIsTheNearestRank(t *testing.T) {
	x := xorshift(9)
	for n := 1; n <= 300; n++ {
		h := newLatencyHistogram()
		for range n {
			decade := int64(1)
			for range x.next() % 6 {
				decade *= 10
			}
			if err := h.RecordValue(1 + int64(x.next()%uint64(9*decade))); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := histMedian(h), histPercentiles(h, []int64{ppmP50}).percents[0]; got != want {
			t.Fatalf("%d values: median %d, want %d", n, got, want)
		}
	}
	for _, counts := range [][2]int64{{1 << 40, 1 << 40}, {1<<40 + 1, 1 << 40}, {1 << 40, 1<<40 + 1}, {3, 1 << 50}} {
		h := newLatencyHistogram()
		if h.RecordValues(1_000, counts[0]) != nil || h.RecordValues(5_000, counts[1]) != nil {
			t.Fatal("recording")
		}
		if got, want := histMedian(h), histPercentiles(h, []int64{ppmP50}).percents[0]; got != want {
			t.Errorf("counts %v: median %d, want %d", counts, got, want)
		}
	}
}

// go test -bench . -benchmem ./pkg/report/: the cost of one duration-mode
// chunk (0 B/op) and of one --report-interval tick.
func BenchmarkRecordChunk(b *testing.B) {
	rec := NewLatencyRecorder()
	chunk := latencyChunk(4)
	b.ReportAllocs()
	b.SetBytes(int64(len(chunk)) * 8)
	for b.Loop() {
		rec.RecordChunk(chunk)
	}
}

func BenchmarkIntervalTick(b *testing.B) {
	rec := NewLatencyRecorder()
	rec.RecordChunk(latencyChunk(5))
	more := latencyChunk(6)[:1000]
	rep := NewIntervalReporter(io.Discard)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		rec.RecordChunk(more)
		if err := rep.Report(Counters{ElapsedNS: int64(i+1) * 1e9, Latency: rec}); err != nil {
			b.Fatal(err)
		}
	}
}
