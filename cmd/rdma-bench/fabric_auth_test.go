package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

// TestFabricToken: with RDMA_BENCH_TOKEN, a rank started with another
// --token is refused (exit 2, told to give every rank the same token,
// nothing of rank 0's version), rank 0 logs the refusal and goes on
// waiting, and the run completes once the rank is started with the
// token.
func TestFabricToken(t *testing.T) {
	args := []string{"tcp_lat", "-n", "200", "--coordinator", "127.0.0.1:" + testenv.FreePort(t), "--advertise", "127.0.0.1",
		"--threshold", "1000000", "--rendezvous-timeout", "30s"}
	env := cleanEnv("RDMA_BENCH_TOKEN=s3cret")
	rank0 := startRank(t, env, slices.Concat(args, []string{"--rank", "0", "--world-size", "3"})...)
	rank1 := startRank(t, env, slices.Concat(args, []string{"--rank", "1", "--world-size", "3"})...)
	bad := startRank(t, cleanEnv(), slices.Concat(args, []string{"--rank", "2", "--world-size", "3", "--token", "guess"})...)
	bad.wait(t, 20*time.Second)
	if msg := bad.stderr.String(); bad.code != 2 || !strings.Contains(msg, "rank 0 refused this rank's registration: give every rank the same --token or RDMA_BENCH_TOKEN") || strings.Contains(msg, "devel") {
		t.Fatalf("a rank with another token: exit %d:\n%s", bad.code, msg)
	}
	rank0.await(t, "coordinator refused 1 connection", 10*time.Second)
	good := startRank(t, env, slices.Concat(args, []string{"--rank", "2", "--world-size", "3"})...)
	for i, p := range []*proc{rank0, rank1, good} {
		p.wait(t, 2*time.Minute)
		if p.code != 0 {
			t.Errorf("rank %d: exit %d:\n%s", i, p.code, p.stderr.String())
		}
	}
}
