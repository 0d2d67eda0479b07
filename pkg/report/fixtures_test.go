package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// xorshift is a tiny deterministic generator, so fixtures never depend on
// the standard library's random streams.
type xorshift uint64

func (x *xorshift) next() uint64 {
	v := uint64(*x)
	v ^= v << 13
	v ^= v >> 7
	v ^= v << 17
	*x = xorshift(v)
	return v
}

// spikySamples returns n latency samples around base ns with two spikes:
// the largest at index 10 and the second largest at index 20.
func spikySamples(n int, base, spread int64, seed uint64) []int64 {
	x := xorshift(seed)
	s := make([]int64, n)
	for i := range s {
		s[i] = base + int64(x.next()%uint64(spread))
	}
	s[10] = 25_000
	s[20] = 18_000
	return s
}

// wideSamples returns n samples spread over several decades, from lo ns.
func wideSamples(n int, lo int64, seed uint64) []int64 {
	x := xorshift(seed)
	s := make([]int64, n)
	for i := range s {
		decade := int64(1)
		for range x.next() % 4 {
			decade *= 10
		}
		s[i] = lo*decade + int64(x.next()%uint64(lo*decade))
	}
	return s
}

var fixtureTime = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func latParams(workload string, size int) Params {
	return Params{
		Workload: workload, Transport: "RC", Completion: "poll", SizeBytes: size,
		Iterations: 1000, Warmup: 100, TxDepth: 1, RxDepth: 512, CQMod: 1, PostList: 1,
		InlineBytes: 220, QPs: 1, Threads: 1, MTU: 4096, GIDIndex: 3, Device: "mlx5_0", Port: 1,
	}
}

// fixtureDocument is a deterministic sweep: latency from raw samples (two
// sizes) and from a histogram (duration mode), bandwidth (two sizes), and a
// TCP latency result without remote CPU.
var numaNode1 = 1

func fixtureDocument() *Document {
	local := &CPUUsage{ProcessPctOfCore: 99.5, ProcessPctOfAll: 49.75, SystemPctOfCore: 104, SystemPctOfAll: 52,
		UserS: 1.5, SysS: 0.49, WallS: 2, Cores: 2}
	remote := &CPUUsage{ProcessPctOfCore: 100, ProcessPctOfAll: 50, SystemPctOfCore: 101, SystemPctOfAll: 50.5,
		UserS: 1.8, SysS: 0.2, WallS: 2, Cores: 2}

	lat2 := &Result{Params: latParams("write_lat", 2), Kind: Latency,
		SamplesNS: spikySamples(1000, 1000, 500, 1), CPU: CPUPair{Local: local, Remote: remote}}
	lat2.Ops = 1000
	lat64 := &Result{Params: latParams("write_lat", 64), Kind: Latency,
		SamplesNS: []int64{1000, 1001, 1000, 1001}, CPU: CPUPair{Local: local}}
	lat64.Iterations, lat64.Ops = 4, 4

	dur := &Result{Params: latParams("write_lat", 4096), Kind: Latency, CPU: CPUPair{Local: local, Remote: remote}}
	dur.Iterations, dur.DurationS = 0, 2
	rec := NewLatencyRecorder()
	rec.RecordChunk(wideSamples(20000, 2000, 7))
	rec.RecordChunk([]int64{0, -3, 2 * int64(time.Hour)})
	rec.Fill(dur)
	dur.Ops = uint64(rec.Count())

	bw := func(size int, peak float64) *Result {
		p := latParams("write_bw", size)
		p.Workload, p.Iterations, p.TxDepth, p.CQMod = "write_bw", 5000, 128, 100
		return &Result{Params: p, Kind: Bandwidth, Bytes: uint64(size) * 5000, Ops: 5000,
			ElapsedNS: int64(5000) * int64(size) * 8 / 90, PeakBandwidthGbps: peak,
			CPU: CPUPair{Local: local, Remote: remote}}
	}
	tcp := &Result{Params: Params{Workload: "tcp_lat", Transport: "TCP", Completion: "event",
		SizeBytes: 64, Iterations: 5, Warmup: 1, QPs: 1, Threads: 1},
		Kind: Latency, SamplesNS: []int64{20000, 21000, 19500, 30000, 20500}, CPU: CPUPair{Local: local}}

	for _, r := range []*Result{lat2, lat64, dur, tcp} {
		r.Status, r.Clock, r.ClockSampleNS = StatusOK, "tsc", 21.5
	}
	lat64.Status, lat64.Reason = StatusPartial, "interrupted: the peer stopped answering"
	lat2.Validation = "passed"
	p50, bw90 := 1.0, 90.0
	lat2.Expectations = []document.Expectation{{Expect: "lat.p50<=3us", Source: "--expect", Metric: "lat.p50", Op: "<=", Limit: 3, Unit: "us", Value: &p50, Pass: true}}
	bw64k := bw(65536, 92.5)
	bw64k.Expectations = []document.Expectation{{Expect: "bw>=95%link", Source: "floors.txt:2", Metric: "bw", Op: ">=", Limit: 95, Unit: "Gb/s", Value: &bw90, Note: "95% of the 100 Gb/s link"}}
	return &Document{
		Tool: Tool{Name: "rdma-bench", Version: "0.1.0", Commit: "abc1234"},
		Host: Host{Hostname: "node1", Kernel: "6.1.0-test", CPUModel: "Test CPU @ 3.00GHz", Cores: 2, RDMACore: "44.0",
			Placement: &Placement{Node: 1, CPUs: "8-15", Why: "mlx5_0's NUMA node, from sysfs"}},
		Device: &Device{Name: "mlx5_0", FirmwareVersion: "20.31.1014", Port: 1, LinkLayer: "Ethernet",
			MTU: 4096, GIDType: "RoCE v2", GIDIndex: 3, LinkRateGbps: 100, LinkRate: "100 Gb/sec (4X EDR)", NUMANode: &numaNode1,
			Chosen: "the first of 2 RDMA devices (mlx5_0, rxe0); -d names another", Provider: "/usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav34.so"},
		StartedAt: fixtureTime,
		Args:      []string{"rdma-bench", "write_lat", "-a", "10.0.0.1"},
		Results:   []*Result{lat2, lat64, dur, bw64k, bw(1048576, 0), tcp},
	}
}

// checkGolden compares got with testdata/name, rewriting it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file (run go test -update after checking):\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}
