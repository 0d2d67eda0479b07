//go:build cgo

package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
)

// TestFabricRails: four ranks on two devices, ranks 0 and 2 on the
// test's device and 1 and 3 on a second soft-RoCE device made here (two
// hosts of two rails, on one machine), sweep all pairs with --rails: the
// document names the two rails, every pair is within one (2->0 and 3->1,
// then 0->2 and 1->3: the rails' rounds at once), and rank 0's table says the
// schedule is rail-aligned. Two ranks whose devices differ have no rail
// in common: refused, naming the rails.
func TestFabricRails(t *testing.T) {
	dev := testenv.Device(t)
	secondDevice(t, "rxe8", "rbrail1", "10.98.0.1/24")
	devs := []string{dev, "rxe8", dev, "rxe8"}

	sweep := func(t *testing.T, devs []string, dir string) (*proc, []*proc) {
		n := strconv.Itoa(len(devs))
		args := []string{"write_lat", "-n", "200", "--rails", "--coordinator", "127.0.0.1:" + testenv.FreePort(t), "--advertise", "127.0.0.1",
			"--threshold", "1000000", "--pair-timeout", "30s", "--world-size", n}
		var others []*proc
		for r := 1; r < len(devs); r++ {
			others = append(others, startRank(t, cleanEnv(), slices.Concat(args, []string{"--rank", strconv.Itoa(r), "-d", devs[r]})...))
		}
		rank0 := startRank(t, cleanEnv(), slices.Concat(args, []string{"--rank", "0", "-d", devs[0],
			"--output-file", filepath.Join(dir, "table.txt"), "--save", "--results-dir", dir})...)
		rank0.wait(t, 3*time.Minute)
		for _, p := range others {
			p.wait(t, time.Minute)
		}
		return rank0, others
	}

	dir := t.TempDir()
	rank0, others := sweep(t, devs, dir)
	if rank0.code != 0 {
		t.Fatalf("rank 0: exit %d:\n%s", rank0.code, rank0.stderr.String())
	}
	for i, p := range others {
		if p.code != 0 {
			t.Errorf("rank %d: exit %d: %s", i+1, p.code, p.stderr.String())
		}
	}
	d := readSavedFabric(t, dir, "")
	wantRails := []fabric.Rail{{Device: dev, Ranks: []int{0, 2}}, {Device: "rxe8", Ranks: []int{1, 3}}}
	if !reflect.DeepEqual(d.Schedule.Rails, wantRails) || d.Schedule.Rounds != 2 || d.Schedule.Pairs != 4 || len(d.Pairs) != 4 || len(d.Failed()) != 0 {
		t.Fatalf("document: schedule %+v, %d pairs, %d failed", d.Schedule, len(d.Pairs), len(d.Failed()))
	}
	var got []string
	for _, p := range d.Pairs {
		if devs[p.Src] != devs[p.Dst] {
			t.Errorf("pair %d->%d crosses rails (%s, %s)", p.Src, p.Dst, devs[p.Src], devs[p.Dst])
		}
		got = append(got, strconv.Itoa(p.Round)+":"+strconv.Itoa(p.Src)+"->"+strconv.Itoa(p.Dst))
	}
	slices.Sort(got)
	if want := []string{"1:2->0", "1:3->1", "2:0->2", "2:1->3"}; !slices.Equal(got, want) {
		t.Errorf("pairs %q, want %q", got, want)
	}
	for _, m := range d.Members {
		if m.Device != devs[m.Rank] {
			t.Errorf("%s measured on %s, want %s", m, m.Device, devs[m.Rank])
		}
	}
	table, err := os.ReadFile(filepath.Join(dir, "table.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "rail-aligned (no pair across rails; " + fabric.RailsText(wantRails) + ")"; !strings.Contains(string(table), want) {
		t.Errorf("rank 0's table lacks %q:\n%s", want, table)
	}

	rank0, _ = sweep(t, []string{dev, "rxe8"}, t.TempDir())
	if rank0.code == 0 || !strings.Contains(rank0.stderr.String(), "--rails: no two ranks measure on devices of the same name ("+dev+": rank 0; rxe8: rank 1)") {
		t.Errorf("two ranks on two rails: exit %d, want a refusal naming the rails:\n%s", rank0.code, rank0.stderr.String())
	}
}

// TestFabricPlanRails: --plan cannot know the rails before the ranks
// register: refused, saying what to plan instead.
func TestFabricPlanRails(t *testing.T) {
	r := run(t, time.Minute, "fabric", "write_lat", "--plan", "--rails", "--world-size", "8")
	if r.code != 2 || !strings.Contains(r.stderr, "--plan --rails: the rails are known only once the ranks have registered") {
		t.Errorf("--plan --rails: exit %d, want 2 saying why:\n%s%s", r.code, r.stdout, r.stderr)
	}
}
