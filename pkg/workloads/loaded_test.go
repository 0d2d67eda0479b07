package workloads

import (
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/point"
)

// TestLoadedPlans: worker 0 keeps the latency plan, the loaders get the
// bandwidth counterpart's, on each side; only the client holds the loaders
// to the latency loop.
func TestLoadedPlans(t *testing.T) {
	for _, c := range []struct {
		workload           string
		client, server     plan // the loaders'
		latClient, latSrvr plan
	}{
		{"write_lat", plan{send: true}, plan{}, plan{ping: true, halve: true}, plan{pong: true, halve: true}},
		{"send_lat", plan{send: true}, plan{recv: true, postRecvs: true},
			plan{ping: true, halve: true, postRecvs: true}, plan{pong: true, halve: true, postRecvs: true}},
		{"read_lat", plan{send: true}, plan{}, plan{ping: true}, plan{}},
	} {
		w, _ := catalog.Lookup(c.workload)
		spec := point.Resolved{Spec: point.Spec{Workload: c.workload, Loaders: 2, Rate: 1000}}
		for _, side := range []struct {
			r        role
			lat, ldr plan
		}{{client, c.latClient, c.client}, {server, c.latSrvr, c.server}} {
			s := newSession(spec, Local{}, w, side.r, nil, 0)
			if (s.load != nil) != (side.r == client) {
				t.Errorf("%s %s: load sync %v", c.workload, side.r, s.load != nil)
			}
			if got := []plan{s.planOf(0), s.planOf(1), s.planOf(2)}; got[0] != side.lat || got[1] != side.ldr || got[2] != side.ldr {
				t.Errorf("%s %s: plans %+v; want %+v then %+v twice", c.workload, side.r, got, side.lat, side.ldr)
			}
		}
	}
}

// TestLoadSync: the latency loop waits for every loader once, however
// often (or early) a loader says it streams; end releases the loaders.
func TestLoadSync(t *testing.T) {
	l := newLoadSync(2)
	l.streaming(0)
	l.streaming(0) // again (its deferred call): counted once
	waited := make(chan struct{})
	go func() { l.awaitLoad(); close(waited) }()
	select {
	case <-waited:
		t.Fatal("the latency loop started before the second loader streamed")
	case <-time.After(20 * time.Millisecond):
	}
	l.streaming(1)
	<-waited
	if l.done.Load() {
		t.Fatal("done before end")
	}
	l.end()
	var none *loadSync // without loaders: no waiting, no ending
	none.awaitLoad()
	none.end()
	none.streaming(3)
	if !l.done.Load() {
		t.Error("end did not end the load")
	}
}
