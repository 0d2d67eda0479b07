//go:build cgo

package main

import "testing"

// perftest's -g and --mcg are rdma-bench's switch of the same spelling.
func TestPerftestMcg(t *testing.T) {
	for _, args := range [][]string{{"-g"}, {"--mcg"}, {"-bg"}} {
		if _, b, _, notes, err := parsePerftest(args...); err != nil || !b.spec.Mcast || len(notes) != 0 {
			t.Errorf("%q: mcast %t, notes %q, %v", args, b.spec.Mcast, notes, err)
		}
	}
}
