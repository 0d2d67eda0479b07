package workloads

import (
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	good := map[string]int{"2": 2, "64": 64, "4K": 4096, "4k": 4096, "1M": 1 << 20, "8MiB": 8 << 20, "1G": 1 << 30, "512B": 512, " 16 ": 16}
	for in, want := range good {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	bad := map[string]string{"0": "at least 1 byte", "": "want a number", "-4": "want a number", "12Q": `"12Q"`,
		"K": "want a number", "2G": "larger than 1G", "99999999999999999999": "want a number", "1.5K": `"1.5K"`}
	for in, want := range bad {
		if _, err := ParseSize(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSize(%q) = %v; want an error containing %q", in, err, want)
		}
	}
	if _, err := ParseSizes("2,64,4K,zz,1M"); err == nil || !strings.Contains(err.Error(), `"zz"`) {
		t.Errorf("ParseSizes with a bad token: %v", err)
	}
	s, err := SweepSizes(2, 8<<20)
	if err != nil || len(s) != 23 || s[0] != 2 || s[22] != 8<<20 {
		t.Errorf("SweepSizes(2, 8M) = %v, %v", s, err)
	}
	if _, err := SweepSizes(100, 10); err == nil {
		t.Error("SweepSizes(100, 10) accepted")
	}
}

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
