package workloads

import (
	"strings"
	"testing"
)

func TestPeakTracker(t *testing.T) {
	p := newPeakTracker(2, 1000)
	// 10 ops of 1000 B every 1000 ns = 80 Gb/s, then a faster stretch.
	pts := []peakPoint{{0, 0}, {1000, 10}, {2000, 20}, {2500, 30}, {3000, 40}, {5000, 50}}
	for _, x := range pts {
		p.add(x.ns, x.ops)
	}
	// Best 2-completion window: 2000..3000, 20 ops in 1000 ns: 160 Gb/s.
	if got := p.gbps(); got != 160 {
		t.Errorf("peak %v Gb/s, want 160", got)
	}
	short := newPeakTracker(5, 1000)
	short.add(0, 0)
	short.add(10, 10)
	if short.gbps() != 0 {
		t.Errorf("peak of a run shorter than one window: %v", short.gbps())
	}
}

func TestPatterns(t *testing.T) {
	b := make([]byte, 300)
	fillPattern(b, patternSeed(client, false))
	if firstMismatch(b, patternSeed(client, false)) != -1 {
		t.Fatal("pattern does not check against itself")
	}
	if firstMismatch(b, patternSeed(server, false)) != 0 || patternSeed(client, true) == patternSeed(client, false) {
		t.Fatal("patterns of the two sides or regions must differ")
	}
	b[123] ^= 1
	if err := check(b, patternSeed(client, false), "payload"); err == nil || !strings.Contains(err.Error(), "byte 123") {
		t.Fatalf("check = %v", err)
	}
}
