package gate

import (
	"math"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestLoadSeesOthers: a busy process that is not the gate's (not among
// its workers, not waited for) shows as other processes' CPU, and in the
// note; the gate's own busy worker does not.
func TestLoadSeesOthers(t *testing.T) {
	busy := func() *exec.Cmd {
		c := exec.Command("sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
		return c
	}
	other := busy()
	a := markLoad(nil)
	time.Sleep(time.Second)
	l := loadBetween(a, markLoad(nil))
	if l.Error != "" || l.OthersCPUs < 0.5 || !strings.Contains(l.Note(), "other processes took") {
		t.Fatalf("a busy loop beside: %+v, note %q; want at least half a CPU of others", l, l.Note())
	}
	_ = other.Process.Kill()
	_ = other.Wait()
	// The machine is shared (other builds may run): what is checked is
	// that naming the busy process as the gate's takes its CPU out.
	own := busy()
	pids := []int{own.Process.Pid}
	a, aOwn := markLoad(nil), markLoad(pids)
	time.Sleep(time.Second)
	b, bOwn := markLoad(nil), markLoad(pids)
	took := (bOwn.ours - b.ours) - (aOwn.ours - a.ours) // the worker's own user time meanwhile
	if d := loadBetween(a, b).OthersUserSeconds - loadBetween(aOwn, bOwn).OthersUserSeconds; took < 0.1 || math.Abs(d-took) > 0.05 {
		t.Errorf("the gate's own busy worker took %.2f s; others fell by %.2f s when it was named, want the same", took, d)
	}
	if n := (&Load{Seconds: 10, CPUs: 2, OthersCPUs: 0.01}).Note(); n != "" {
		t.Errorf("a quiet machine has a note: %q", n)
	}
	if n := (&Load{Seconds: 10, CPUs: 2, StealSeconds: 1}).Note(); !strings.Contains(n, "steal") {
		t.Errorf("steal: note %q", n)
	}
}
