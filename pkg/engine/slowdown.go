//go:build rdmabench_slowdown

package engine

/*
#cgo CFLAGS: -DRB_SLOWDOWN
#include "clock.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
)

// A binary built with -tags rdmabench_slowdown spins for
// RDMA_BENCH_SLOWDOWN_NS nanoseconds before every post of a work-request
// list and every TCP message send: a known slowdown for the gate's proof
// (docs/gate.md). No release build has it; its version line says so.

// ApplySlowdown reads RDMA_BENCH_SLOWDOWN_NS and sets the spin; it
// returns the spin in nanoseconds.
func ApplySlowdown() (int64, error) {
	v := os.Getenv("RDMA_BENCH_SLOWDOWN_NS")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > 1e9 {
		return 0, fmt.Errorf("RDMA_BENCH_SLOWDOWN_NS=%q: want 0 to 1000000000 nanoseconds", v)
	}
	C.rb_slowdown_ns = C.int64_t(n)
	return n, nil
}

// SlowdownBuild is true in a build with the rdmabench_slowdown tag.
const SlowdownBuild = true
