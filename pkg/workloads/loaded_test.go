package workloads

import (
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/point"
)

// TestLoadedPlans: worker 0 keeps the latency plan, the loaders get the
// bandwidth counterpart's, on each side; the loaders stream over the
// latency loop's span and a margin.
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
			if got := []plan{s.planOf(0), s.planOf(1), s.planOf(2)}; got[0] != side.lat || got[1] != side.ldr || got[2] != side.ldr {
				t.Errorf("%s %s: plans %+v; want %+v then %+v twice", c.workload, side.r, got, side.lat, side.ldr)
			}
		}
	}
	if got := loaderSpan(point.Resolved{Spec: point.Spec{Iterations: 2000, Rate: 1000}}); got != 2*time.Second+loaderMargin {
		t.Errorf("loaderSpan of -n 2000 at 1000 ops/s: %v", got)
	}
}
