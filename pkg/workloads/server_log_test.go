package workloads

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuilder is a log sink safe for the summary's timer.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(strings.TrimSuffix(l.b.String(), "\n"), "\n")
}

// TestServerLogLimits: a thousand refusals in an interval give their
// kind's budget of lines and one summary naming the count and the
// addresses; other kinds keep their own budget.
func TestServerLogLimits(t *testing.T) {
	var out lockedBuilder
	l := newServerLog(&out)
	l.interval = 300 * time.Millisecond
	for i := range 1000 {
		l.printf("dropped", fmt.Sprint("10.0.0.", i%7), "dropped %d", i)
	}
	l.printf("served", "10.0.0.9", "served a run")
	budget := logBudgets["dropped"]
	if got := out.lines(); len(got) != budget+1 || got[budget] != "served a run" {
		t.Fatalf("before the interval's end: %q, want %d dropped lines and the served one", got, budget)
	}
	time.Sleep(time.Second) // the summary, written by its timer
	got := out.lines()
	want := fmt.Sprintf("%d more connections dropped in the last", 1000-budget)
	if len(got) != budget+2 || !strings.HasPrefix(got[budget+1], want) || !strings.HasSuffix(got[budget+1], "from 7 addresses") {
		t.Fatalf("after the interval: %q, want a summary %q ... from 7 addresses", got, want)
	}
	l.printf("dropped", "10.0.0.1", "dropped again")
	if got := out.lines(); got[len(got)-1] != "dropped again" {
		t.Errorf("a new interval does not start with a fresh budget: %q", got)
	}
}

// TestServerLogClose: close writes the summary of an interval under way,
// and discards what comes later.
func TestServerLogClose(t *testing.T) {
	var out lockedBuilder
	l := newServerLog(&out)
	for range logBudgets["refused"] + 3 {
		l.printf("refused", "10.0.0.1", "refused")
	}
	l.close()
	l.printf("refused", "10.0.0.1", "after close")
	got := out.lines()
	if last := got[len(got)-1]; len(got) != logBudgets["refused"]+1 || !strings.HasPrefix(last, "3 more clients refused") || !strings.HasSuffix(last, "from 10.0.0.1") {
		t.Fatalf("after close: %q", got)
	}
}
