//go:build cgo

package main

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
)

// fabricRDMAArgs are the launcher tests' workloads: short runs, every
// rank a real RDMA endpoint on the test device, a suspect re-measured at
// most 12 times (two looks) and the suspects at most 1 minute in all (a
// slow day's six suspects would otherwise take the default 5; 2 minutes
// made each of the three launcher tests take 2.5 minutes under CI's
// emulator, of its 90; a share of 10 s still re-measures a suspect
// two or three times, and one that runs out is time_up).
var fabricRDMAArgs = []string{"write_lat", "write_bw", "-n", "200", "--pair-timeout", "60s", "--outlier-pairs", "12", "--outlier-time", "1m"}

// fabricRunLimit bounds a launcher test's run: the sweep, then up to 2 x
// 12 measurements of each suspect, one pair at a time.
const fabricRunLimit = 10 * time.Minute

// fabricMatrices are the metrics rank 0 prints a matrix of.
var fabricMatrices = []string{"write_lat.p50_us", "write_bw.bw_gbps"}

// launcher finds a launcher's binary: the test skips without it, or fails
// where a device is required (make test's VM, whose host installs it).
func launcher(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if testenv.Required() {
			t.Fatalf("%s not found (vm/run.sh installs openmpi-bin and mpich on the host): %v", name, err)
		}
		t.Skipf("%s not found: %v", name, err)
	}
	return p
}

// checkLaunched checks a 4-rank run of fabricRDMAArgs: rank 0's table
// (stdout) and saved document in dir, every pair measured, the figures,
// the suspects (recomputed here), their re-measurements and the exit
// status that follows from their decisions.
func checkLaunched(t *testing.T, code int, stdout, stderr, dir, launcher, method string) *fabricJSON {
	t.Helper()
	t.Logf("rank 0's table:\n%s", stdout)
	d := readSavedFabric(t, dir, "(exit "+strconv.Itoa(code)+"):\n"+stdout+"\n"+stderr)
	if d.Launcher != launcher || d.Rendezvous != method || d.World.Size != 4 || len(d.Members) != 4 || len(d.Pairs) != 12 {
		t.Fatalf("launcher %q via %q, world %+v, %d members, %d pairs; want %s via %s, 4 and 12",
			d.Launcher, d.Rendezvous, d.World, len(d.Members), len(d.Pairs), launcher, method)
	}
	for _, p := range d.Failed() {
		t.Errorf("pair %d->%d failed: %s", p.Src, p.Dst, p.Error)
	}
	dev := testenv.Device(t)
	for i, m := range d.Members {
		if m.Rank != i || m.Device != dev || m.GID == "" || m.Port != 1 || m.MTUBytes < 256 || m.Addr == "" {
			t.Errorf("member %d: %+v", i, m)
		}
	}
	checkFigures(t, d, []string{"write_lat.p50_us", "write_lat.p99_us", "write_bw.bw_gbps", "write_bw.msg_rate_mpps"})
	checkPairResults(t, d, "write_lat", "write_bw")
	got, want := gotSuspects(d), wantSuspects(d, fabricMatrices)
	if !slices.Equal(got, want) {
		t.Errorf("suspects %q, want %q", got, want)
	}
	outliers, failedRechecks := checkRechecks(t, d, 12)
	wantCode := 0
	if outliers > 0 || failedRechecks > 0 || len(d.Failed()) > 0 {
		wantCode = 1
	}
	if code != wantCode {
		t.Errorf("exit %d, want %d (%d outliers of %d suspects, %d failed re-measurements, %d failed pairs):\n%s",
			code, wantCode, outliers, len(want), failedRechecks, len(d.Failed()), stderr)
	}
	for _, metric := range fabricMatrices {
		rows := matrixRows(t, stdout, metric)
		m := d.Matrix(metric)
		if len(rows) != 4 {
			t.Fatalf("%s: %d rows", metric, len(rows))
		}
		for s, row := range rows {
			for dst, cell := range row[1:] {
				if v, ok := m.At(s, dst); s != dst && (!ok || cell != markedCell(m, s, dst)) || s == dst && cell != "-" {
					t.Errorf("%s %d->%d: cell %q, document %v", metric, s, dst, cell, v)
				}
			}
		}
	}
	return d
}

// TestFabricOpenMPI: Open MPI's mpirun starts 4 ranks; they meet through
// --coordinator (Open MPI gives no PMI-1 descriptor).
func TestFabricOpenMPI(t *testing.T) {
	testenv.Device(t)
	mpirun := launcher(t, "mpirun.openmpi")
	dir := t.TempDir()
	env := cleanEnv("OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	args := slices.Concat([]string{"--oversubscribe", "-np", "4", binary(t), "fabric"}, fabricRDMAArgs,
		[]string{"--coordinator", "127.0.0.1:" + testenv.FreePort(t), "--save", "--results-dir", dir})
	start := time.Now()
	r := runLauncher(t, fabricRunLimit, env, mpirun, args...)
	t.Logf("mpirun took %v", time.Since(start).Round(time.Second))
	checkLaunched(t, r.code, r.stdout, r.stderr, dir, fabric.LauncherOpenMPI, fabric.MethodCoordinator)
}

// TestFabricMPICH: MPICH's Hydra mpiexec starts 4 ranks; they meet
// through its PMI-1 key-value store, nothing given.
func TestFabricMPICH(t *testing.T) {
	testenv.Device(t)
	mpiexec := launcher(t, "mpiexec.hydra")
	dir := t.TempDir()
	args := slices.Concat([]string{"-n", "4", binary(t), "fabric"}, fabricRDMAArgs, []string{"--save", "--results-dir", dir})
	start := time.Now()
	r := runLauncher(t, fabricRunLimit, cleanEnv(), mpiexec, args...)
	t.Logf("mpiexec took %v", time.Since(start).Round(time.Second))
	checkLaunched(t, r.code, r.stdout, r.stderr, dir, fabric.LauncherPMI, fabric.MethodPMI)
}

// TestFabricSlurmVariables: 4 processes with Slurm's SLURM_PROCID and
// SLURM_NTASKS (as srun sets them) meet through a shared
// --rendezvous-dir.
func TestFabricSlurmVariables(t *testing.T) {
	testenv.Device(t)
	dir, rv := t.TempDir(), t.TempDir()
	args := slices.Concat(fabricRDMAArgs, []string{"--rendezvous-dir", rv, "--save", "--results-dir", dir})
	start := time.Now()
	var ps []*proc
	for r := range 4 {
		ps = append(ps, startRank(t, cleanEnv("SLURM_PROCID="+strconv.Itoa(r), "SLURM_NTASKS=4", "SLURM_JOB_ID=77"), args...))
	}
	for r, p := range ps {
		p.wait(t, fabricRunLimit)
		if r > 0 && (p.code != 0 || p.stdout.Len()+len(p.stderr.String()) > 0) {
			t.Errorf("rank %d: exit %d, printed %q %q", r, p.code, p.stdout.String(), p.stderr.String())
		}
	}
	t.Logf("4 ranks took %v", time.Since(start).Round(time.Second))
	checkLaunched(t, ps[0].code, ps[0].stdout.String(), ps[0].stderr.String(), dir, fabric.LauncherSlurm, fabric.MethodDir)
	if left, _ := filepath.Glob(filepath.Join(rv, "*")); len(left) != 0 {
		t.Errorf("rendezvous dir left with %v", left)
	}
}

// TestFabricRankKilled: rank 3 is killed once round 2 is over; the sweep
// goes on without it: the pairs of rounds 1 and 2 and every later pair
// without rank 3 are measured, rank 3's later pairs fail naming it, rank
// 0's matrix shows FAIL there, and it exits 1.
func TestFabricRankKilled(t *testing.T) {
	testenv.Device(t)
	dir := t.TempDir()
	// Rank 3 may die before it connects to its round-3 partner, which
	// then serves until the pair's time is up: keep it short.
	args := []string{"write_lat", "write_bw", "-n", "200", "--pair-timeout", "15s", "--idle-timeout", "3s",
		"--outlier-pairs", "12", "--outlier-time", "1m", "--coordinator", "127.0.0.1:" + testenv.FreePort(t)}
	ps := startRanks(t, 4, []int{1, 2, 3}, args...)
	rank0 := startRank(t, cleanEnv(), slices.Concat(args, []string{"--rank", "0", "--world-size", "4", "--save", "--results-dir", dir})...)
	rank0.await(t, "round 2 of 6:", 3*time.Minute)
	if err := ps[2].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	rank0.wait(t, fabricRunLimit)
	stdout := rank0.stdout.String()
	t.Logf("rank 0's table:\n%s\nstderr:\n%s", stdout, rank0.stderr.String())
	if rank0.code != 1 || !strings.Contains(rank0.stderr.String(), "4 of 12 pairs failed") {
		t.Errorf("rank 0: exit %d, want 1 and 4 of 12 pairs failed", rank0.code)
	}
	d := readSavedFabric(t, dir, "")
	for _, p := range d.Pairs {
		lost := p.Round >= 3 && (p.Src == 3 || p.Dst == 3)
		switch {
		case lost && (p.OK() || !strings.Contains(p.Error, "rank 3")):
			t.Errorf("round %d %d->%d: %s %q; want failed, naming rank 3", p.Round, p.Src, p.Dst, p.Status, p.Error)
		case !lost && !p.OK():
			t.Errorf("round %d %d->%d failed: %s", p.Round, p.Src, p.Dst, p.Error)
		}
	}
	if len(d.Departed) != 1 || d.Departed[0].Rank != 3 || d.Departed[0].Round != 3 {
		t.Errorf("departed %+v, want rank 3 in round 3", d.Departed)
	}
	if !strings.Contains(stdout, "4 of 12 pairs failed:") || !strings.Contains(stdout, "rank 3 (") || strings.Count(stdout, "FAIL") != 8 {
		t.Errorf("rank 0's table does not show rank 3's 4 failed pairs in both matrices and the findings")
	}
	for r, p := range ps[:2] {
		p.wait(t, time.Minute)
		if p.code != 0 {
			t.Errorf("rank %d: exit %d: %s", r+1, p.code, p.stderr.String())
		}
	}
}
