package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

// TestSuite runs the main job end to end on a device: every workload of
// the suite at every size, RDMA and TCP, as one JSON document with both
// sides' CPU, live figures on stderr; and the side-by-side table.
func TestSuite(t *testing.T) {
	testenv.Device(t)
	sizes := []int{2, 4096}
	r := run(t, 5*time.Minute, "suite", "--loopback", "--sizes", "2,4K", "-D", "0.3", "--report-interval", "100ms",
		"-o", "json", "--tcp-port", freePort(t))
	if r.code != 0 {
		t.Fatalf("suite: exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		Results []struct {
			Workload  string
			Transport string
			SizeBytes int `json:"size_bytes"`
			Ops       uint64
			Cpu       struct{ Local, Remote *struct{} }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("json output: %v\n%s", err, r.stdout)
	}
	got := map[string]bool{}
	for _, res := range doc.Results {
		key := fmt.Sprintf("%s/%d", res.Workload, res.SizeBytes)
		if got[key] {
			t.Errorf("%s twice", key)
		}
		got[key] = true
		if res.Ops == 0 || res.Cpu.Local == nil || res.Cpu.Remote == nil {
			t.Errorf("%s: %d ops, cpu local %v remote %v", key, res.Ops, res.Cpu.Local != nil, res.Cpu.Remote != nil)
		}
		if tcpWL := strings.HasPrefix(res.Workload, "tcp_"); tcpWL != (res.Transport == "TCP") {
			t.Errorf("%s over %s", key, res.Transport)
		}
	}
	for _, s := range sizes {
		for _, w := range suiteWorkloads {
			if !got[fmt.Sprintf("%s/%d", w, s)] {
				t.Errorf("no %s at %d bytes in the document", w, s)
			}
		}
	}
	if len(doc.Results) != len(sizes)*len(suiteWorkloads) {
		t.Errorf("%d results, want %d", len(doc.Results), len(sizes)*len(suiteWorkloads))
	}
	if n := strings.Count(r.stderr, "cumulative:"); n < len(doc.Results) {
		t.Errorf("%d live figures for %d points of 0.3 s at 100 ms:\n%s", n, len(doc.Results), r.stderr)
	}

	r = run(t, 5*time.Minute, "suite", "--loopback", "--sizes", "64", "-D", "0.2", "--tcp-port", freePort(t))
	if r.code != 0 {
		t.Fatalf("suite: exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"latency: RDMA against TCP", "p50 ratio rdma/tcp", "write_lat", "read_bw", "tcp"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the table has no %q:\n%s", want, r.stdout)
		}
	}
}
