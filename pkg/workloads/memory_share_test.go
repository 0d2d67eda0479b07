package workloads

import (
	"strings"
	"testing"
)

// TestShare: k runs at once each get 1/k of --max-memory, and a run above
// its share is refused naming the share; k of 1 leaves the bound alone.
func TestShare(t *testing.T) {
	l := Local{MaxMemory: 300 << 20}
	if got := l.Share(1); got.MaxMemory != l.MaxMemory || got.memoryShare != "" {
		t.Errorf("Share(1) = %d %q, want %d", got.MaxMemory, got.memoryShare, l.MaxMemory)
	}
	s := l.Share(3)
	if s.MaxMemory != 100<<20 {
		t.Fatalf("Share(3).MaxMemory = %d, want %d", s.MaxMemory, 100<<20)
	}
	if err := s.CheckMemory(Memory{Total: 90 << 20}, "server"); err != nil {
		t.Errorf("90 MiB within a 100 MiB share: %v", err)
	}
	err := s.CheckMemory(Memory{Total: 150 << 20}, "server")
	if want := "above 100.0 MiB (1/3 of --max-memory, for 3 runs at once)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("150 MiB in a 100 MiB share: %v, want %q", err, want)
	}
	if err := l.CheckMemory(Memory{Total: 150 << 20}, "server"); err != nil {
		t.Errorf("150 MiB within 300 MiB: %v", err)
	}
}
