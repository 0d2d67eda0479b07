//go:build rdmabench_slowdown

package engine

/*
#cgo CFLAGS: -DRB_SLOWDOWN
#include "rdma.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// A binary built with -tags rdmabench_slowdown spins before every post
// (and TCP message): RDMA_BENCH_SLOWDOWN_NS="LAT[,BW]" nanoseconds in the
// latency loops and in the bandwidth loops (BW defaults to LAT). A known
// slowdown for the gate's proof (docs/gate.md); no release build has it,
// and its version line says so.

// It also reads RDMA_BENCH_DROP_COMPLETION=N: the Nth completion the
// process polls is discarded, as a provider that loses one does (the
// lost-completion test, cmd/rdma-bench/fault_test.go).

// ApplySlowdown reads RDMA_BENCH_SLOWDOWN_NS and sets the spins; it
// returns them in nanoseconds, latency then bandwidth. It also reads
// RDMA_BENCH_DROP_COMPLETION.
func ApplySlowdown() ([2]int64, error) {
	var ns [2]int64
	if v := os.Getenv("RDMA_BENCH_DROP_COMPLETION"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return ns, fmt.Errorf("RDMA_BENCH_DROP_COMPLETION=%q: want the position of the completion to lose, 1 or more", v)
		}
		C.rb_drop_after = C.int64_t(n)
	}
	v := os.Getenv("RDMA_BENCH_SLOWDOWN_NS")
	if v == "" {
		return ns, nil
	}
	parts := strings.Split(v, ",")
	if len(parts) > 2 {
		return ns, fmt.Errorf("RDMA_BENCH_SLOWDOWN_NS=%q: want LAT or LAT,BW nanoseconds", v)
	}
	for i := range ns {
		p := parts[min(i, len(parts)-1)]
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 0 || n > 1e9 {
			return ns, fmt.Errorf("RDMA_BENCH_SLOWDOWN_NS=%q: want LAT or LAT,BW nanoseconds, each 0 to 1000000000", v)
		}
		ns[i] = n
		C.rb_slowdown_ns[i] = C.int64_t(n)
	}
	return ns, nil
}

// SlowdownBuild is true in a build with the rdmabench_slowdown tag.
const SlowdownBuild = true
