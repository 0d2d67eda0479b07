package fabric

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestSweepFull: 4 ranks measure all 12 ordered pairs; every matrix cell
// is the figure the Src's measurer computed for that pair.
func TestSweepFull(t *testing.T) {
	w := newWorld(t, 4)
	doc, errs := w.run(t)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	if !reflect.DeepEqual(doc.Schedule, ScheduleInfo{Pattern: PatternPairs, Rounds: 6, Pairs: 12}) || len(doc.Pairs) != 12 {
		t.Fatalf("schedule %+v, %d pairs", doc.Schedule, len(doc.Pairs))
	}
	if doc.Launcher != LauncherManual || doc.World.Size != 4 || doc.Rendezvous != MethodCoordinator || len(doc.Members) != 4 {
		t.Errorf("document header %+v", doc)
	}
	lat, bw := doc.Matrix("lat.p50_us"), doc.Matrix("bw_gbps")
	for s := range 4 {
		for d := range 4 {
			v, ok := lat.At(s, d)
			b, okb := bw.At(s, d)
			if s == d {
				if ok || okb {
					t.Errorf("diagonal %d has a figure", s)
				}
				continue
			}
			if !ok || v != fakeLat(s, d) || !okb || b != fakeBW(s, d) {
				t.Errorf("%d->%d: lat %v (%v), bw %v (%v); want %v, %v", s, d, v, ok, b, okb, fakeLat(s, d), fakeBW(s, d))
			}
		}
	}
	for _, p := range doc.Pairs {
		var res map[string]int
		if err := json.Unmarshal(p.Result, &res); err != nil || res["src"] != p.Src || res["dst"] != p.Dst {
			t.Errorf("pair %d->%d result %s", p.Src, p.Dst, p.Result)
		}
	}
	if len(doc.Suspects) != 0 || doc.Recheck != nil || doc.ThresholdPct != DefaultThresholdPct || ExitStatus(doc) != 0 {
		t.Errorf("clean fabric: suspects %+v, recheck %+v, threshold %v, exit %d", doc.Suspects, doc.Recheck, doc.ThresholdPct, ExitStatus(doc))
	}
}

// TestSweepDropResults: figures only, on every rank's pairs.
func TestSweepDropResults(t *testing.T) {
	w := newWorld(t, 3)
	w.cfg.DropResults = true
	doc, errs := w.run(t)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	for _, p := range doc.Pairs {
		if !p.OK() || p.Result != nil || len(p.Figures) != 2 {
			t.Errorf("pair %d->%d: %s, result %s, figures %v", p.Src, p.Dst, p.Status, p.Result, p.Figures)
		}
	}
}

// TestSweepSlowPair: one direction of one pair is 5x worse, every time:
// it is the only suspect of both metrics and its re-measurement confirms
// it, named with both hosts and devices.
func TestSweepSlowPair(t *testing.T) {
	w := newWorld(t, 4)
	w.measurers[1].slow = map[[2]int]bool{{1, 2}: true}
	doc, errs := w.run(t)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	outs := doc.Outliers()
	if len(outs) != 2 || len(doc.Suspects) != 2 {
		t.Fatalf("outliers %+v of suspects %+v", outs, doc.Suspects)
	}
	src := Endpoint{Rank: 1, Hostname: "host-1", Device: "rxe0", Port: 1}
	dst := Endpoint{Rank: 2, Hostname: "host-2", Device: "rxe0", Port: 1}
	for i, metric := range []string{"bw_gbps", "lat.p50_us"} {
		o := outs[i]
		if o.Metric != metric || o.Src != src || o.Dst != dst {
			t.Errorf("outlier %d: %+v", i, o)
		}
	}
	if v := outs[1].Value; v != fakeLat(1, 2)*5 {
		t.Errorf("lat outlier value %v", v)
	}
	if ExitStatus(doc) != 1 {
		t.Error("exit status 0 with outliers")
	}
}

// TestSweepRankKilled: rank 3 dies in its third round; its pairs from then
// on fail with the reason, every other pair is measured.
func TestSweepRankKilled(t *testing.T) {
	w := newWorld(t, 4)
	w.measurers[3].hook = func(ctx context.Context, call int, role string, peer int) error {
		if call == 3 {
			w.cancels[3]() // the process dies: its connections close
			return errKilled
		}
		return nil
	}
	doc, errs := w.run(t)
	if errs[0] != nil || errs[1] != nil || errs[2] != nil {
		t.Fatalf("errors %v", errs)
	}
	if errs[3] == nil {
		t.Error("killed rank 3 returned no error")
	}
	if len(doc.Departed) != 1 || doc.Departed[0].Rank != 3 || doc.Departed[0].Round != 3 {
		t.Fatalf("departed %+v", doc.Departed)
	}
	failed := 0
	for _, p := range doc.Pairs {
		with3 := p.Src == 3 || p.Dst == 3
		switch {
		case with3 && p.Round >= 3:
			failed++
			if p.OK() || !strings.Contains(p.Error, "rank 3 (host-3) left the sweep in round 3: ") {
				t.Errorf("pair %d->%d round %d: %s %q", p.Src, p.Dst, p.Round, p.Status, p.Error)
			}
			if p.Round > 3 && !strings.HasPrefix(p.Error, "not measured: ") {
				t.Errorf("pair %d->%d round %d: %q", p.Src, p.Dst, p.Round, p.Error)
			}
		case !p.OK():
			t.Errorf("pair %d->%d round %d failed: %s", p.Src, p.Dst, p.Round, p.Error)
		}
	}
	if failed != 4 || len(doc.Failed()) != 4 {
		t.Errorf("%d failed pairs, want 4 (rank 3's in rounds 3-6)", len(doc.Failed()))
	}
	m := doc.Matrix("lat.p50_us")
	for _, p := range doc.Pairs {
		v, ok := m.At(p.Src, p.Dst)
		if ok != p.OK() || (ok && v != fakeLat(p.Src, p.Dst)) {
			t.Errorf("matrix %d->%d: %v %v for a pair %s", p.Src, p.Dst, v, ok, p.Status)
		}
		if st := m.State[p.Src*4+p.Dst]; !p.OK() && st != CellFailed {
			t.Errorf("matrix %d->%d state %d for a failed pair", p.Src, p.Dst, st)
		}
	}
	if len(doc.Suspects) != 0 {
		t.Fatalf("suspects %+v", doc.Suspects)
	}
	if ExitStatus(doc) != 1 {
		t.Error("exit status 0 with failed pairs")
	}
}

// TestSweepRankSilent: rank 2 hangs in a measurement, ignoring its
// context; rank 0 gives up on it after PairTimeout+Grace.
func TestSweepRankSilent(t *testing.T) {
	w := newWorld(t, 4)
	release := make(chan struct{})
	w.measurers[2].hook = func(ctx context.Context, call int, role string, peer int) error {
		if call == 2 {
			<-release // hung: deaf to ctx
			w.cancels[2]()
			return errKilled
		}
		return nil
	}
	go func() { // release the hung rank once rank 0 has given up on it
		time.Sleep(2500 * time.Millisecond)
		close(release)
	}()
	start := time.Now()
	doc, errs := w.run(t)
	if errs[0] != nil {
		t.Fatal(errs[0])
	}
	if len(doc.Departed) != 1 || doc.Departed[0].Rank != 2 || doc.Departed[0].Round != 2 ||
		doc.Departed[0].Reason != "silent for 1.5s after its assignment" {
		t.Fatalf("departed %+v", doc.Departed)
	}
	if len(doc.Failed()) != 5 { // rank 2's pairs in rounds 2-6
		t.Errorf("%d failed pairs, want 5", len(doc.Failed()))
	}
	t.Logf("sweep took %s", time.Since(start))
}

// TestSweepMeasureError: a failed measurement fails its pair only.
func TestSweepMeasureError(t *testing.T) {
	w := newWorld(t, 3)
	w.cfg.Pattern = PatternOneToAll
	w.measurers[2].hook = func(ctx context.Context, call int, role string, peer int) error {
		if role == roleMeasure {
			return context.DeadlineExceeded
		}
		return nil
	}
	doc, errs := w.run(t)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	if len(doc.Pairs) != 4 {
		t.Fatalf("%d pairs", len(doc.Pairs))
	}
	for _, p := range doc.Pairs {
		if p.Src == 2 {
			// rank 0 served in vain: told that the measuring side had
			// failed, it stopped.
			if p.OK() || p.Error != "measure on rank 2 (host-2): context deadline exceeded; serve on rank 0 (host-0): stopped serving: the measuring side had failed" {
				t.Errorf("pair 2->0: %q", p.Error)
			}
		} else if !p.OK() {
			t.Errorf("pair %d->%d: %q", p.Src, p.Dst, p.Error)
		}
	}
}

// TestSweepCancelled: cancelling rank 0 stops every rank, and rank 0's
// document is marked partial.
func TestSweepCancelled(t *testing.T) {
	w := newWorld(t, 3)
	w.measurers[0].hook = func(ctx context.Context, call int, role string, peer int) error {
		if call == 2 {
			w.cancels[0]()
		}
		return nil
	}
	doc, errs := w.run(t)
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "context canceled") || doc == nil {
		t.Fatalf("rank 0: %v, doc %v", errs[0], doc != nil)
	}
	for r := 1; r < 3; r++ {
		if errs[r] == nil || !strings.Contains(errs[r].Error(), "rank 0 stopped the sweep: rank 0 stopped: context canceled") {
			t.Errorf("rank %d: %v", r, errs[r])
		}
	}
	// The document says it is partial, and why; the pairs the
	// interruption cut short are not in it.
	if !doc.Partial() || doc.Status != StatusPartial || !regexp.MustCompile(`^stopped in round [1-6] of 6: context canceled; [0-5] of 6 scheduled pairs measured or failed$`).MatchString(doc.Reason) {
		t.Errorf("status %q, reason %q", doc.Status, doc.Reason)
	}
	for _, p := range doc.Pairs {
		if p.Status != StatusOK && p.Status != StatusFailed {
			t.Errorf("pair %d->%d in round %d: status %q", p.Src, p.Dst, p.Round, p.Status)
		}
	}
	var b strings.Builder
	if err := WriteFindings(&b, doc, 0); err != nil || !strings.Contains(b.String(), "of a partial sweep (stopped in round ") {
		t.Errorf("findings (%v):\n%s", err, b.String())
	}
}

// TestSweepBadPattern: rank 0 refuses the pattern and tells the others.
func TestSweepBadPattern(t *testing.T) {
	w := newWorld(t, 2)
	w.cfg.Pattern = "mesh"
	doc, errs := w.run(t)
	if want := `sweep: pattern "mesh": want pairs, ring, one-to-all, halves, incast`; doc != nil || errs[0] == nil || errs[0].Error() != want {
		t.Errorf("rank 0: %v, want %q", errs[0], want)
	}
	if want := `sweep of rank 1: rank 0 stopped the sweep: pattern "mesh": want pairs, ring, one-to-all, halves, incast`; errs[1] == nil || errs[1].Error() != want {
		t.Errorf("rank 1: %v, want %q", errs[1], want)
	}
}

// TestSweepProgress: rank 0 writes one line a round, counting its pairs
// and naming the first failure.
func TestSweepProgress(t *testing.T) {
	w := newWorld(t, 3)
	var progress strings.Builder
	w.cfg.Progress = &progress
	w.measurers[1].hook = func(_ context.Context, _ int, role string, peer int) error {
		if role == roleMeasure && peer == 2 {
			return errors.New("cable cut")
		}
		return nil
	}
	_, errs := w.run(t)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d progress lines, want one for each of 6 rounds:\n%s", len(lines), progress.String())
	}
	failed := 0
	for i, l := range lines {
		prefix := fmt.Sprintf("round %d of 6: 1 pair, ", i+1)
		switch {
		case strings.HasPrefix(l, prefix+"0 failed; "):
		case strings.HasPrefix(l, prefix+"1 failed (1->2: measure on rank 1 (host-1): cable cut"):
			failed++
		default:
			t.Errorf("line %q: want %q and the failures", l, prefix)
		}
		if !strings.HasSuffix(l, " so far") {
			t.Errorf("line %q does not end with the time so far", l)
		}
	}
	if failed != 1 {
		t.Errorf("%d lines name the failed pair, want 1:\n%s", failed, progress.String())
	}
}
