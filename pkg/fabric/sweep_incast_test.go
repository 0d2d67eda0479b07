package fabric

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestSweepIncast: four ranks sweep the incast pattern, every rank
// registering three listeners; in round r the three others measure
// against rank r-1 at once, each on the listener its assignment names
// (the fake's server checks the hello is its peer's), and every pair is
// measured with its own figures.
func TestSweepIncast(t *testing.T) {
	w := newWorld(t, 4)
	w.cfg.Pattern = PatternIncast
	doc, errs := w.run(t)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	if !reflect.DeepEqual(doc.Schedule, ScheduleInfo{Pattern: PatternIncast, Rounds: 4, Pairs: 12}) || len(doc.Pairs) != 12 {
		t.Fatalf("schedule %+v, %d pairs", doc.Schedule, len(doc.Pairs))
	}
	for _, m := range doc.Members {
		if len(m.Listeners) != 3 || m.Listeners[0] != m.Addr {
			t.Errorf("%s: listeners %q", m, m.Listeners)
		}
	}
	for _, p := range doc.Pairs {
		lat, ok := p.Figures.Get("lat.p50_us")
		if !p.OK() || p.Round != p.Dst+1 || !ok || lat != fakeLat(p.Src, p.Dst) {
			t.Errorf("pair %d->%d round %d: %s %q, lat %v", p.Src, p.Dst, p.Round, p.Status, p.Error, lat)
		}
	}
}

// TestSweepIncastSenderFails: rank 1 fails every measurement; its pairs
// fail with its error and the receiver's (whose listener for it waited
// out the pair's time: no abandon stops one listener of several), and
// the other senders' pairs of the same rounds are measured.
func TestSweepIncastSenderFails(t *testing.T) {
	w := newWorld(t, 4)
	w.cfg.Pattern = PatternIncast
	w.measurers[1].hook = func(ctx context.Context, call int, role string, peer int) error {
		if role == roleMeasure {
			return errors.New("boom")
		}
		return nil
	}
	doc, errs := w.run(t)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	if len(doc.Pairs) != 12 {
		t.Fatalf("%d pairs", len(doc.Pairs))
	}
	for _, p := range doc.Pairs {
		if p.Src != 1 {
			if !p.OK() {
				t.Errorf("pair %d->%d: %q", p.Src, p.Dst, p.Error)
			}
			continue
		}
		want := fmt.Sprintf("measure on rank 1 (host-1): boom; serve on rank %d (host-%d): ", p.Dst, p.Dst)
		if p.OK() || !strings.HasPrefix(p.Error, want) {
			t.Errorf("pair 1->%d: %q, want %q...", p.Dst, p.Error, want)
		}
	}
}

// TestSweepIncastNeedsListeners: ranks that registered one listener each
// cannot serve an incast round; rank 0 refuses the sweep before any
// round, naming the rank and what the pattern needs.
func TestSweepIncastNeedsListeners(t *testing.T) {
	w := newWorld(t, 3)
	w.cfg.Pattern = PatternIncast
	w.oneListener = true
	doc, errs := w.run(t)
	want := "rank 0 (host-0) registered 1 measurement listener(s), pattern incast needs 2"
	if doc != nil || errs[0] == nil || errs[0].Error() != "sweep: "+want {
		t.Errorf("rank 0: %v, want %q", errs[0], want)
	}
	for r := 1; r < 3; r++ {
		if errs[r] == nil || !strings.HasSuffix(errs[r].Error(), "rank 0 stopped the sweep: "+want) {
			t.Errorf("rank %d: %v", r, errs[r])
		}
	}
}

// plainMeasurer is a Measurer that is not a ConcurrentServer.
type plainMeasurer struct{ Measurer }

// TestPerformIncastAssignments: a rank told to serve several pairs at
// once with a Measurer that cannot fails each of them, by peer; an
// assignment naming a peer or a listener the peer does not have fails.
func TestPerformIncastAssignments(t *testing.T) {
	members := []Member{{Rank: 0}, {Rank: 1}, {Rank: 2}}
	a := &assignMsg{Round: 1, Role: roleServe, Peer: 1, Peers: []int{1, 2}}
	d := perform(context.Background(), plainMeasurer{newFakeMeasurer(t, 0)}, members, a, time.Second)
	want := "this rank's measurer cannot serve several pairs at once"
	if d.Error != "" || len(d.PeerErrors) != 2 || d.PeerErrors[1] != want || d.PeerErrors[2] != want {
		t.Errorf("report %+v, want each peer's error %q", d, want)
	}
	a.Peers = []int{1, 3}
	if d := perform(context.Background(), plainMeasurer{newFakeMeasurer(t, 0)}, members, a, time.Second); d.Error != "assignment names peer 3, outside 0..2" {
		t.Errorf("peer out of range: %+v", d)
	}
	members[1].Listeners = []string{"h:1", "h:2"}
	m := &assignMsg{Round: 1, Role: roleMeasure, Peer: 1, Listener: 2}
	if d := perform(context.Background(), newFakeMeasurer(t, 0), members, m, time.Second); d.Error != "assignment names listener 2 of rank 1, which registered 2" {
		t.Errorf("listener out of range: %+v", d)
	}
}
