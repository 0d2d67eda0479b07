package workloads

import (
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/point"
)

// -g (--mcg) is for send_lat and send_bw over UD: with no -c it chooses
// UD, saying so; RC and UC, and every other workload, are refused before
// anything is opened. A resolved Spec resolves to itself, and the
// handshake carries the switch.
func TestMcastResolve(t *testing.T) {
	for _, w := range []string{"send_lat", "send_bw"} {
		r, notes, err := spec(w, func(s *point.Spec) { s.Mcast = true }).Resolve(hostLimits)
		if err != nil || r.Transport != "UD" || len(notes) != 1 || !strings.Contains(notes[0], "-g (--mcg) with no -c: over UD") {
			t.Errorf("%s -g: transport %q, notes %q, %v", w, r.Transport, notes, err)
		}
		again, _, err := Resolve(r.Spec, nil)
		if err != nil || again != r {
			t.Errorf("%s -g: resolving again gives %+v, %v", w, again, err)
		}
		for _, tr := range []string{"RC", "UC"} {
			_, _, err := spec(w, func(s *point.Spec) { s.Mcast, s.Transport = true, tr }).Resolve(hostLimits)
			if want := "-g (--mcg) needs -c UD: multicast carries unreliable datagrams, not " + tr; err == nil || err.Error() != want {
				t.Errorf("%s -c %s -g: %v, want %q", w, tr, err, want)
			}
		}
	}
	for _, w := range []string{"write_bw", "write_lat", "read_bw", "atomic_lat", "tcp_bw", "tcp_lat"} {
		_, _, err := spec(w, func(s *point.Spec) { s.Mcast = true }).Resolve(hostLimits)
		if want := "-g applies to send_lat, send_bw, not " + w; err == nil || err.Error() != want {
			t.Errorf("%s -g: %v, want %q", w, err, want)
		}
	}
	suite := point.NewSpec("")
	suite.Mcast = true
	if suite.Only(mustLookup(t, "write_bw")).Mcast || !suite.Only(mustLookup(t, "send_bw")).Mcast {
		t.Error("a suite's -g: Only keeps it for write_bw, or drops it for send_bw")
	}
	r, _, _ := spec("send_bw", func(s *point.Spec) { s.Mcast = true }).Resolve(hostLimits)
	m := r.Encode()
	if m["mcast"] != "true" {
		t.Errorf("handshake mcast=%q", m["mcast"])
	}
	back, err := point.DecodeSpec(m)
	if err != nil || !back.Mcast {
		t.Errorf("decoded mcast %t, %v", back.Mcast, err)
	}
	p, ok := point.ParamByFlag("mcg")
	if !ok || p.Short != "g" || !p.IsBool() {
		t.Errorf("--mcg: %+v", p)
	}
}

func mustLookup(t *testing.T, name string) catalog.Workload {
	t.Helper()
	w, err := catalog.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
