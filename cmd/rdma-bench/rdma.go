//go:build cgo

package main

// The measuring build: rdma-core's libibverbs and librdmacm and the C
// loops of pkg/engine, through cgo. offline.go is the build without them.

import (
	"fmt"

	"github.com/rdma-bench/rdma-bench/pkg/engine"
)

// buildNote marks the version line of a build with the gate's calibrated
// slowdown (-tags rdmabench_slowdown), so that no document of such a build
// passes for a real measurement.
var buildNote string

// applySlowdown sets a slowdown build's spin from RDMA_BENCH_SLOWDOWN_NS.
func applySlowdown() error {
	if !engine.SlowdownBuild {
		return nil
	}
	ns, err := engine.ApplySlowdown()
	buildNote = fmt.Sprintf("[slowdown build: %d ns spin per latency post, %d per bandwidth post]", ns[0], ns[1])
	return err
}
