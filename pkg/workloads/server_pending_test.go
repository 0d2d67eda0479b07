package workloads

import (
	"fmt"
	"testing"
)

// fakeConn is a pending connection whose Heard the test decides.
type fakeConn struct {
	name  string
	heard bool
}

func (f *fakeConn) Heard() bool  { return f.heard }
func (f *fakeConn) Close() error { return nil }

// fill adds n connections from source, heard or not, and fails if one
// is turned away or evicts another.
func fill(t *testing.T, p *pendingConns, source string, n int, heard bool) []*fakeConn {
	t.Helper()
	var cs []*fakeConn
	for i := range n {
		c := &fakeConn{name: fmt.Sprintf("%s#%d", source, i), heard: heard}
		if closed := p.add(c, source); closed != nil {
			t.Fatalf("adding %s closed %s", c.name, closed.(*fakeConn).name)
		}
		cs = append(cs, c)
	}
	return cs
}

// TestPendingKeepsHeard: a connection whose hello has begun is never
// evicted, however many connections follow from its own address; silent
// ones go, oldest first.
func TestPendingKeepsHeard(t *testing.T) {
	p := &pendingConns{}
	real := fill(t, p, "10.0.0.1", 1, true)[0]
	silent := fill(t, p, "10.0.0.1", maxPerSource-1, false)
	for i := range 10 * maxPerSource {
		c := &fakeConn{name: fmt.Sprint("flood", i)}
		closed := p.add(c, "10.0.0.1")
		if closed == real {
			t.Fatalf("connection %d evicted a client whose hello had begun", i)
		}
		if i == 0 && closed != silent[0] {
			t.Fatalf("the first eviction took %v, want the oldest silent connection", closed)
		}
	}
}

// TestPendingPerSource: a flood from one address evicts only its own
// connections, even silent ones of other addresses, and takes at most
// maxPerSource slots.
func TestPendingPerSource(t *testing.T) {
	p := &pendingConns{}
	others := fill(t, p, "10.0.0.2", 3, false)
	for i := range 10 * maxPending {
		closed := p.add(&fakeConn{name: fmt.Sprint("flood", i)}, "10.0.0.1")
		for _, o := range others {
			if closed == o {
				t.Fatalf("a flood from another address evicted a connection of 10.0.0.2 (after %d)", i)
			}
		}
	}
	if n := p.bySource["10.0.0.1"]; n != maxPerSource {
		t.Errorf("the flooding address holds %d slots, want %d", n, maxPerSource)
	}
}

// TestPendingFullEvictsLargest: with every slot taken, a newcomer evicts
// from the address holding the most slots; when every connection it could
// evict has begun its hello, the newcomer itself is turned away.
func TestPendingFullEvictsLargest(t *testing.T) {
	p := &pendingConns{}
	n := maxPending / maxPerSource
	for i := range n - 1 {
		fill(t, p, fmt.Sprint("10.0.1.", i), maxPerSource, false)
	}
	small := fill(t, p, "10.0.2.1", maxPerSource/2, false)
	fill(t, p, "10.0.2.2", maxPerSource-maxPerSource/2, false)
	c := &fakeConn{name: "new"}
	closed := p.add(c, "10.0.3.1")
	if fc, ok := closed.(*fakeConn); !ok || fc.name != "10.0.1.0#0" {
		t.Fatalf("a full queue closed %v: want the oldest connection of an address with %d slots, 10.0.1.0#0", closed, maxPerSource)
	}
	if p.add(&fakeConn{}, "10.0.3.1") == small[0] {
		t.Fatal("a full queue evicted from an address holding fewer slots than others")
	}
	q := &pendingConns{}
	for i := range n {
		fill(t, q, fmt.Sprint("10.0.1.", i), maxPerSource, true)
	}
	c = &fakeConn{name: "new"}
	if closed := q.add(c, "10.0.3.1"); closed != c {
		t.Fatalf("a queue of hellos under way closed %v, want the newcomer", closed)
	}
	if len(q.conns) != maxPending {
		t.Errorf("%d pending, want %d", len(q.conns), maxPending)
	}
}

// TestPendingRemove: a connection that leaves frees its slot, and its
// address's count; removing one that holds none (evicted) says so.
func TestPendingRemove(t *testing.T) {
	p := &pendingConns{}
	cs := fill(t, p, "10.0.0.1", 2, false)
	if !p.remove(cs[0]) || p.remove(cs[0]) || !p.remove(cs[1]) {
		t.Error("remove does not report whether the connection held a slot")
	}
	if len(p.conns) != 0 || len(p.bySource) != 0 {
		t.Errorf("after removing every connection: %d pending, %v by address", len(p.conns), p.bySource)
	}
}
