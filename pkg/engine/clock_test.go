package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/engine"
)

// BenchmarkSampleCost is the cost of one latency sample in the engine: a
// timestamp from each clock this machine offers and its store into the
// preallocated buffer. BenchmarkGoTimeNow is Go's clock, for scale.
func BenchmarkSampleCost(b *testing.B) {
	defer engine.SetClock(engine.ClockAuto)
	for _, name := range []string{"monotonic", "tsc"} {
		b.Run(name, func(b *testing.B) {
			if _, err := engine.SetClock(engine.ClockNames[name]); err != nil {
				b.Skip(err)
			}
			b.ReportMetric(engine.SampleCostNS(b.N), "ns/sample")
		})
	}
}

func BenchmarkGoTimeNow(b *testing.B) {
	buf := make([]int64, 1024)
	for i := 0; i < b.N; i++ {
		buf[i&1023] = time.Now().UnixNano()
	}
}

func TestClockMonotonic(t *testing.T) {
	a := engine.Now()
	time.Sleep(2 * time.Millisecond)
	if d := engine.Now() - a; d < int64(2*time.Millisecond) || d > int64(time.Second) {
		t.Fatalf("2 ms sleep measured as %d ns", d)
	}
	if c := engine.SampleCostNS(100000); c <= 0 {
		t.Fatalf("sample cost %v ns", c)
	}
}

// TestClockModes checks every clock this machine offers against
// CLOCK_MONOTONIC_RAW read by Go: a sleep measures as a sleep, and two
// readings never go backwards.
func TestClockModes(t *testing.T) {
	defer engine.SetClock(engine.ClockAuto)
	for name, mode := range engine.ClockNames {
		t.Run(name, func(t *testing.T) {
			c, err := engine.SetClock(mode)
			if mode == engine.ClockTSC && err != nil {
				t.Skipf("no usable TSC here: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %s, %.1f ns/sample", c.Source, c.Why, c.SampleNS)
			if mode == engine.ClockTSC && c.Source != "tsc" {
				t.Fatalf("asked for tsc, got %s", c.Source)
			}
			prev := engine.Now()
			for range 100000 {
				n := engine.Now()
				if n < prev {
					t.Fatalf("clock went backwards by %d ns", prev-n)
				}
				prev = n
			}
			for range 3 {
				a, g := pairedReading(t)
				time.Sleep(20 * time.Millisecond)
				b, h := pairedReading(t)
				d, gd := b-a, h.Sub(g).Nanoseconds()
				if diff := d - gd; diff < -200000 || diff > 200000 {
					t.Fatalf("20 ms sleep: clock says %d ns, Go says %d ns", d, gd)
				}
			}
		})
	}
}

func TestParseClock(t *testing.T) {
	if _, err := engine.ParseClock("rdtsc"); err == nil || !strings.Contains(err.Error(), "auto, monotonic or tsc") {
		t.Fatalf("ParseClock(rdtsc) = %v", err)
	}
	if m, err := engine.ParseClock("TSC"); err != nil || m != engine.ClockTSC {
		t.Fatalf("ParseClock(TSC) = %v, %v", m, err)
	}
}

// pairedReading reads the clock between two readings of Go's and returns
// it with their midpoint. A pair whose Go readings are more than 50 µs
// apart (the thread, or a VM's virtual CPU, was preempted between them) is
// taken again, so that the comparison measures the clocks, not the
// scheduler.
func pairedReading(t *testing.T) (int64, time.Time) {
	t.Helper()
	for range 100 {
		g0 := time.Now()
		n := engine.Now()
		g1 := time.Now()
		if w := g1.Sub(g0); w < 50*time.Microsecond {
			return n, g0.Add(w / 2)
		}
	}
	t.Fatal("no clock reading without a preemption of over 50 µs in 100 tries")
	return 0, time.Time{}
}
