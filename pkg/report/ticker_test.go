package report

import (
	"strings"
	"testing"
	"time"
)

func TestTickerNil(t *testing.T) {
	var b strings.Builder
	for _, tk := range []*Ticker{NewTicker(0, &b), NewTicker(time.Second, nil)} {
		if tk != nil {
			t.Fatalf("NewTicker without a period or a writer = %+v, want nil", tk)
		}
		tk.Share(NewLatencyRecorder())
		if tk.Start(5) != 0 || tk.Latency([]int64{1}, 2, 10) != 0 || tk.Ops(3, 2, 10) != 0 {
			t.Error("a nil ticker asks for a yield")
		}
	}
}

// TestTickerPaces: a line per passed tick, none before, the next tick
// after now even when the loop yielded late, and the cumulative rate of
// the operations handed over.
func TestTickerPaces(t *testing.T) {
	var b strings.Builder
	tk := NewTicker(time.Second, &b)
	if next := tk.Start(10e9); next != 11e9 {
		t.Fatalf("first tick %d, want 11e9", next)
	}
	if next := tk.Ops(500, 1000, 10.5e9); next != 11e9 || b.Len() != 0 {
		t.Fatalf("before the tick: next %d, printed %q", next, b.String())
	}
	if next := tk.Ops(2_000_000, 1000, 12.5e9); next != 13e9 {
		t.Fatalf("a late yield: next tick %d, want 13e9", next)
	}
	want := "[ 2.5s] interval: 6.40 Gb/s 0.800 Mpps | cumulative: 6.40 Gb/s 0.800 Mpps\n"
	if b.String() != want {
		t.Fatalf("printed %q, want %q", b.String(), want)
	}
	// Latency: the ticker records the chunks itself unless it shares the
	// run's recorder.
	b.Reset()
	tk = NewTicker(time.Second, &b)
	tk.Start(0)
	tk.Latency([]int64{1000, 3000, 5000}, 2, 1.5e9)
	if !strings.Contains(b.String(), "p50 3.0") {
		t.Fatalf("latency tick %q: want p50 3.0xx us", b.String())
	}
	b.Reset()
	run := NewLatencyRecorder()
	run.RecordChunk([]int64{7000})
	tk = NewTicker(time.Second, &b)
	tk.Share(run)
	tk.Start(0)
	tk.Latency([]int64{7000}, 2, 1e9)
	if !strings.Contains(b.String(), "p50 7.0") || run.Snapshot().h().TotalCount() != 1 {
		t.Fatalf("shared recorder: tick %q, %d samples in the run's recorder (want 1)", b.String(), run.Snapshot().h().TotalCount())
	}
}
