package main

import (
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

// TestSRQ: --use-srq receives through one shared receive queue per
// thread, in loopback and as two processes, RC and UD, with every payload
// checked; the document says so. A workload that does not receive is
// refused before anything is allocated.
func TestSRQ(t *testing.T) {
	testenv.Device(t)
	check := func(t *testing.T, r result) {
		t.Helper()
		if got := oneResult(t, r); !got.Params.SRQ || got.Validation != "passed" || got.Ops == 0 {
			t.Errorf("srq %t, validation %q, ops %d: want true, passed and some", got.Params.SRQ, got.Validation, got.Ops)
		}
	}
	for _, c := range [][]string{
		{"send_bw", "-n", "2000", "-s", "4K", "-q", "4", "--threads", "2", "-r", "64"},
		{"send_bw", "-n", "2000", "-s", "1K", "-c", "UD", "-q", "2"},
		{"send_lat", "-n", "300"},
		{"send_bw", "-n", "1000", "-s", "4K", "-b", "-q", "2"},
	} {
		t.Run("loopback "+strings.Join(c, " "), func(t *testing.T) {
			check(t, run(t, 90*time.Second, append([]string{"run", c[0], "--loopback", "--use-srq", "--validate", "-o", "json"}, c[1:]...)...))
		})
	}
	t.Run("two processes", func(t *testing.T) {
		port := testenv.FreePort(t)
		startServer(t, port)
		check(t, run(t, 90*time.Second, "run", "send_bw", "127.0.0.1", "-p", port, "--use-srq", "--validate",
			"-n", "2000", "-s", "4K", "-q", "3", "-o", "json"))
	})
	r := run(t, 30*time.Second, "run", "write_bw", "--loopback", "--use-srq")
	if r.code != 2 || !strings.Contains(r.stderr, "--use-srq applies to send_lat, send_bw, not write_bw") {
		t.Errorf("write_bw --use-srq: exit %d, %s", r.code, r.stderr)
	}
}
