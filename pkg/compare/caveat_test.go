package compare

import (
	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"strings"
	"testing"
)

// TestCaveatCells: a side's cell and the notes say how many runs gave a
// percentile from too few samples, and how many sat at the tick.
func TestCaveatCells(t *testing.T) {
	if got := (RunCounts{Unclean: 1, Thin: 10, Tick: 2}).cellText(); got != " (1 unclean, 10 thin*, 2 at tick)" {
		t.Errorf("cell %q", got)
	}
	row := GateRow{Row: Row{Point: "write_lat RC poll 1 MiB", Metric: metric.LatP99_9,
		Base: Side{N: 10, RunCounts: RunCounts{Thin: 10}}, New: Side{N: 10, RunCounts: RunCounts{Thin: 10, Tick: 3}}}}
	notes := strings.Join(caveatNotes([]GateRow{row}), "\n")
	for _, want := range []string{
		"write_lat RC poll 1 MiB lat.p99_9*: 10 of 10 base runs and 10 of 10 new runs have fewer latency samples than the percentile needs",
		"write_lat RC poll 1 MiB: 3 of 10 new runs had a median latency at the scheduler's tick",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}
