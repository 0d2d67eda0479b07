//go:build cgo

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

// TestFabricInterrupted: SIGTERM at rank 0 in the middle of a sweep saves
// what was measured, marked partial with why (status and reason in the
// document, a PARTIAL line in the table), and every rank stops.
func TestFabricInterrupted(t *testing.T) {
	dir := t.TempDir()
	args := []string{"tcp_lat", "-D", "1", "--coordinator", "127.0.0.1:" + testenv.FreePort(t), "--advertise", "127.0.0.1",
		"--threshold", "1000000"}
	ps := startRanks(t, 3, []int{1, 2}, args...)
	rank0 := startRank(t, cleanEnv(), slices.Concat(args, []string{"--rank", "0", "--world-size", "3",
		"--output-file", filepath.Join(dir, "table.txt"), "--save", "--results-dir", dir})...)
	rank0.await(t, "round 2 of 6", time.Minute)
	rank0.cmd.Process.Signal(syscall.SIGTERM)
	rank0.wait(t, 30*time.Second)
	if rank0.code != 1 {
		t.Errorf("rank 0: exit %d, want 1:\n%s", rank0.code, rank0.stderr.String())
	}
	for i, p := range ps {
		p.wait(t, 30*time.Second)
		if p.code == 0 {
			t.Errorf("rank %d: exit 0 after rank 0 stopped", i+1)
		}
	}
	d := readSavedFabric(t, dir, "")
	if d.Status != "partial" || !strings.Contains(d.Reason, "terminated received") || len(d.Pairs) < 2 || len(d.Pairs) >= 6 || !d.Partial() {
		t.Errorf("status %q, reason %q, %d pairs", d.Status, d.Reason, len(d.Pairs))
	}
	table, _ := os.ReadFile(filepath.Join(dir, "table.txt"))
	if !strings.Contains(string(table), "\nPARTIAL: stopped in round ") {
		t.Errorf("table without its PARTIAL line:\n%s", table)
	}
}
