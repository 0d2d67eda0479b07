//go:build cgo

package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
)

// TestFabricProbe: three ranks started by hand make a probe pass, rank 2
// advertising an address nobody reaches (192.0.2.1, TEST-NET-1): the
// pairs that dial rank 2 fail within the probe's pair timeout and are
// named, every other pair passes, rank 0 prints no matrix and exits 1, and
// the saved document is marked a probe, with one iteration a point and
// no suspects. With a device the probe runs write_lat and write_bw, else
// the TCP workloads.
func TestFabricProbe(t *testing.T) {
	wls := []string{"tcp_lat", "tcp_bw"}
	if len(testenv.Devices()) > 0 {
		wls = []string{"write_lat", "write_bw"}
	}
	dir := t.TempDir()
	args := slices.Concat(wls, []string{"--probe", "--coordinator", "127.0.0.1:" + testenv.FreePort(t)})
	began := time.Now()
	ps := []*proc{
		startRank(t, cleanEnv(), slices.Concat(args, []string{"--advertise", "127.0.0.1", "--rank", "1", "--world-size", "3"})...),
		startRank(t, cleanEnv(), slices.Concat(args, []string{"--advertise", "192.0.2.1", "--rank", "2", "--world-size", "3"})...),
	}
	rank0 := startRank(t, cleanEnv(), slices.Concat(args, []string{"--advertise", "127.0.0.1", "--rank", "0", "--world-size", "3",
		"--save", "--results-dir", dir})...)
	// 6 pairs: the dead ones end at the 10 s pair timeout (plus rank 0's
	// grace when rank 2 goes silent), the others in a second or two.
	rank0.wait(t, 3*time.Minute)
	took := time.Since(began)
	for _, p := range ps {
		p.wait(t, time.Minute)
	}
	out, errOut := rank0.stdout.String(), rank0.stderr.String()
	if rank0.code != 1 || !strings.Contains(out, "probe: each pair connected and made one round trip of "+strings.Join(wls, ", ")+"; no matrix") ||
		strings.Contains(out, "rows measure") || !strings.Contains(errOut, "pairs failed the probe") ||
		!strings.Contains(errOut, ", a probe: one round trip a pair, no re-measurement; ") {
		t.Fatalf("rank 0: exit %d after %s:\n%s%s", rank0.code, took, out, errOut)
	}
	d := readSavedFabric(t, dir, "")
	if !d.Probe || len(d.Suspects) != 0 || d.Recheck != nil || d.Params["probe"] != "true" || d.PairTimeoutNS != (10*time.Second).Nanoseconds() || len(d.Pairs) != 6 {
		t.Fatalf("document: probe %v, %d suspects, params %v, pair timeout %d, %d pairs", d.Probe, len(d.Suspects), d.Params, d.PairTimeoutNS, len(d.Pairs))
	}
	failed := 0
	for _, p := range d.Pairs {
		dead := p.Src == 2 || p.Dst == 2
		if p.Status != fabric.StatusOK {
			failed++
			if !dead || !strings.Contains(out, p.Error) {
				t.Errorf("%d->%d failed (%s), named in the table: %v", p.Src, p.Dst, p.Error, strings.Contains(out, p.Error))
			}
			continue
		}
		if dead {
			continue // rank 2 dials the others: those pairs may pass
		}
		var doc struct {
			Results []struct {
				Workload           string
				Iterations, Warmup int
			} `json:"results"`
		}
		if err := json.Unmarshal(p.Result, &doc); err != nil || len(doc.Results) != len(wls) {
			t.Errorf("%d->%d: result %v, %d points", p.Src, p.Dst, err, len(doc.Results))
		}
		for _, r := range doc.Results {
			if r.Iterations != 1 || r.Warmup != 0 {
				t.Errorf("%d->%d %s: %d iterations, %d warm-up: want 1 and 0", p.Src, p.Dst, r.Workload, r.Iterations, r.Warmup)
			}
		}
	}
	if failed == 0 || failed > 4 {
		t.Errorf("%d pairs failed, want those dialing rank 2 (1 to 4):\n%s", failed, out)
	}
	t.Logf("probe of 3 ranks (%s), rank 2 unreachable: %d of 6 pairs failed, %s", strings.Join(wls, ", "), failed, took.Round(100*time.Millisecond))
}
