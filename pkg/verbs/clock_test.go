package verbs_test

import (
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// BenchmarkSampleCost is the cost of one latency sample in the engine: a
// CLOCK_MONOTONIC_RAW read through the vDSO and its store into the
// preallocated buffer. BenchmarkGoTimeNow is Go's clock, for scale.
func BenchmarkSampleCost(b *testing.B) {
	ns := verbs.SampleCostNS(b.N)
	b.ReportMetric(ns, "ns/sample")
}

func BenchmarkGoTimeNow(b *testing.B) {
	buf := make([]int64, 1024)
	for i := 0; i < b.N; i++ {
		buf[i&1023] = time.Now().UnixNano()
	}
}

func TestClockMonotonic(t *testing.T) {
	a := verbs.Now()
	time.Sleep(2 * time.Millisecond)
	if d := verbs.Now() - a; d < int64(2*time.Millisecond) || d > int64(time.Second) {
		t.Fatalf("2 ms sleep measured as %d ns", d)
	}
	if c := verbs.SampleCostNS(100000); c <= 0 {
		t.Fatalf("sample cost %v ns", c)
	}
}
