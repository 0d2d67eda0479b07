//go:build cgo

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// --expect: a point that fails a floor is written, its verdict in every
// view, and the run exits 1; one that passes exits 0; a bad expectation,
// or one that could never be judged, exits 2 before anything runs. The
// TCP baseline runs without a device; RDMA floors run in the VM
// (TestExpectRDMA).
func TestExpect(t *testing.T) {
	if os.Getenv("RDMA_BENCH_IN_VM") != "" {
		t.Skip("the host's run covers it: TCP needs no device")
	}
	r := run(t, 60*time.Second, "run", "tcp_lat", "--loopback", "-n", "2000", "--expect", "workload=tcp_lat lat.p50<=1ns")
	if r.code != 1 || !strings.Contains(r.stdout, "expect: 2 bytes: workload=tcp_lat lat.p50<=1ns failed: ") || !strings.Contains(r.stdout, "expect: 0 of 1 met") ||
		!strings.Contains(r.stderr, "1 expectation failed: tcp_lat 2 bytes: workload=tcp_lat lat.p50<=1ns failed: ") {
		t.Errorf("a failed floor: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	dir := t.TempDir()
	floors := filepath.Join(dir, "floors.txt")
	if err := os.WriteFile(floors, []byte("# the baseline's ceilings\nworkload=tcp_lat size=2 lat.p50<=10s\nworkload=tcp_lat lat.p99<=1ns\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, 60*time.Second, "run", "tcp_lat", "--loopback", "-n", "2000", "--expect", "@"+floors, "-o", "json")
	var d document.Document
	if r.code != 1 || json.Unmarshal([]byte(r.stdout), &d) != nil || len(d.Results) != 1 || len(d.Results[0].Expectations) != 2 {
		t.Fatalf("a file of floors: exit %d, %s", r.code, r.stderr)
	}
	if x := d.Results[0].Expectations; !x[0].Pass || x[0].Source != floors+":2" || x[1].Pass || x[1].Metric != "lat.p99" || x[1].Value == nil || x[1].Limit != 0.001 {
		t.Errorf("verdicts %+v", x)
	}
	r = run(t, 60*time.Second, "run", "tcp_lat", "--loopback", "-n", "2000", "--expect", "workload=tcp_lat lat.p50<=10s", "-o", "csv")
	if r.code != 0 || !strings.Contains(r.stdout, `,true,"workload=tcp_lat lat.p50<=10s met: `) {
		t.Errorf("a met floor: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "tcp_lat", "--loopback", "--expect", "bw>=lots"}, `--expect "bw>=lots": value "lots": want a positive number`},
		{[]string{"run", "tcp_lat", "--loopback", "--expect", "lat.p50<=3us"}, `--expect "lat.p50<=3us" selects no point of this run (tcp_lat 2 B (latency))`},
		{[]string{"run", "tcp_bw", "--loopback", "--expect", "workload=tcp_bw bw>=90%link"}, "the port's link rate is unknown: give the floor in Gb/s instead"},
		{[]string{"suite", "--loopback", "--sizes", "64", "--expect", "@" + filepath.Join(dir, "none")}, "--expect @" + filepath.Join(dir, "none") + ": no such file or directory"},
		{[]string{"run", "tcp_bw", "--loopback", "-y", "10"}, `--expect "msgrate>=10Mpps" selects no point of this run (tcp_bw 64 KiB (bandwidth))`},
	} {
		r := run(t, 30*time.Second, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d, %s; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// RDMA floors against the port's link rate (sysfs): the rate is in the
// document and the header, a share of it judged, a NUMA placement
// recorded; a floor far above what soft-RoCE does fails with exit 1, one
// far below passes, and the streamed point records carry the verdicts
// too.
func TestExpectRDMA(t *testing.T) {
	testenv.Device(t)
	r := run(t, 90*time.Second, "run", "write_bw", "--loopback", "-D", "0.3", "-s", "64K",
		"--expect", "bw>=0.001%link", "--expect", "size=64K bw>=100%link", "-o", "ndjson")
	if r.code != 1 || !strings.Contains(r.stderr, "1 expectation failed: write_bw 65536 bytes: size=64K bw>=100%link failed: ") {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	types, lines := records(t, r.stdout)
	var start document.StreamStart
	var point document.StreamPoint
	var last document.StreamDocument
	for i, ty := range types {
		switch ty {
		case document.RecordStart:
			_ = json.Unmarshal([]byte(lines[i]), &start)
		case document.RecordPoint:
			_ = json.Unmarshal([]byte(lines[i]), &point)
		case document.RecordDocument:
			_ = json.Unmarshal([]byte(lines[i]), &last)
		}
	}
	if start.Device == nil || start.Device.LinkRateGbps <= 0 || start.Device.NUMANode == nil || start.Host.Placement == nil {
		t.Fatalf("start record without the link rate, the device's node or the placement: %s", lines[0])
	}
	link := start.Device.LinkRateGbps
	if point.Result == nil || len(point.Result.Expectations) != 2 || !point.Result.Expectations[0].Pass || point.Result.Expectations[1].Pass {
		t.Errorf("point record's verdicts: %s", lines[len(lines)-2])
	}
	if last.Document == nil || len(last.Document.Results) != 1 {
		t.Fatalf("document record: %s", lines[len(lines)-1])
	}
	x := last.Document.Results[0].Expectations
	if len(x) != 2 || !x[0].Pass || x[1].Pass || x[1].Limit != link || x[1].Note != "100% of the "+strconv.FormatFloat(link, 'f', -1, 64)+" Gb/s link" {
		t.Errorf("verdicts %+v (link %v Gb/s)", x, link)
	}
	r = run(t, 90*time.Second, "run", "write_bw", "--loopback", "-D", "0.3", "--expect", "bw>=0.001%link")
	if r.code != 0 || !strings.Contains(r.stdout, "expect: 1 of 1 met") || !strings.Contains(r.stdout, ", link ") || !strings.Contains(r.stdout, "NUMA placement: ") {
		t.Errorf("a met floor: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
