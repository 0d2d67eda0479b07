//go:build !rdmabench_slowdown

package engine

// ApplySlowdown does nothing outside a build with the rdmabench_slowdown
// tag (slowdown.go): RDMA_BENCH_SLOWDOWN_NS is not read.
func ApplySlowdown() ([2]int64, error) { return [2]int64{}, nil }

// SlowdownBuild is true in a build with the rdmabench_slowdown tag.
const SlowdownBuild = false
