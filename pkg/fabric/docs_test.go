package fabric

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDocsPlanTable checks the schedule arithmetic of docs/fabric.md
// against Plan: each row of its plan table must be what Plan computes for
// 10 s a pair.
func TestDocsPlanTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/fabric.md")
	if err != nil {
		t.Skipf("docs/fabric.md not beside the package: %v", err)
	}
	_, table, ok := strings.Cut(string(b), "<!-- plan-table: 10s a pair -->\n")
	table, _, ok2 := strings.Cut(table, "<!-- /plan-table -->")
	if !ok || !ok2 {
		t.Fatal("docs/fabric.md has no plan table")
	}
	rows := 0
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[2:] {
		f := strings.Split(strings.Trim(line, "| "), " | ")
		if len(f) != 6 {
			t.Fatalf("row %q: want 6 cells", line)
		}
		n := atoi(t, f[1])
		rounds, err := Schedule(f[0], n)
		if err != nil {
			t.Fatal(err)
		}
		got := Plan(rounds, 10*time.Second, DefaultPlanSync)
		want := PlanSummary{Hosts: n, Rounds: atoi(t, f[2]), Pairs: atoi(t, f[3]), MaxPairsPerRound: atoi(t, f[4]), PerPair: 10 * time.Second,
			Sync: time.Duration(n) * DefaultPlanSync}
		if want.Estimated, err = time.ParseDuration(f[5]); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("docs say %s of %d hosts is %+v, Plan says %+v", f[0], n, want, got)
		}
		rows++
	}
	if rows < 3 {
		t.Errorf("only %d rows", rows)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
