// Command gen writes the fixture documents of the compare, plot and report
// tests (cmd/rdma-bench/testdata/compare/*.json) as values of pkg/document's
// types, written by its encoder:
//
//	go run ./cmd/rdma-bench/testdata/compare/gen
//
// Every run's latency samples are made from a formula, so the documents
// are the same on every run of the generator: exact nearest-rank
// percentiles in latency_us, and the samples' HdrHistogram (1 ns to 1 h,
// 3 significant digits) in histogram.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

type (
	doc    = document.Document
	result = document.Result
)

func main() {
	dir := "cmd/rdma-bench/testdata/compare"
	docs := map[string]*doc{
		"base.json":     newDoc("base", "0.2.0", "aaa1111", "20.31.1014", "2026-11-20T10:00:00Z", 10, 1.0, 0),
		"same.json":     newDoc("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 10, 1.0, 3),
		"slower.json":   newDoc("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 10, 1.10, 3),
		"few-base.json": newDoc("base", "0.2.0", "aaa1111", "20.31.1014", "2026-11-20T10:00:00Z", 3, 1.0, 0),
		"few-new.json":  newDoc("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 3, 1.0, 3),
	}
	partial := newDoc("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 3, 1.0, 3)
	r := partial.Results[0]
	r.Status, r.Reason = document.StatusPartial, "run 3: interrupted: the peer stopped answering"
	r.Runs[2].Status, r.Runs[2].Reason = document.StatusPartial, "interrupted: the peer stopped answering"
	docs["partial.json"] = partial
	qps := newDoc("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 3, 1.0, 3)
	for _, r := range qps.Results {
		if r.Workload == "write_bw" {
			r.Params["qps"] = raw(4)
		}
	}
	docs["qps4.json"] = qps
	subset := newDoc("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 10, 1.0, 3)
	subset.Results = []*result{subset.Results[0], subset.Results[1], latency("send_lat", "RC", 64, 2.2, 10, 3)}
	docs["subset.json"] = subset
	bwOnly := newDoc("", "0.2.0", "aaa1111", "20.31.1014", "2026-11-20T10:00:00Z", 3, 1.0, 0)
	bwOnly.Results = bwOnly.Results[4:]
	docs["bw-only.json"] = bwOnly
	// unclean.json: the port counters moved in runs 2 and 5 of write_lat
	// 64 B and in every run of tcp_lat 64 B (rxe retransmits).
	unclean := newDoc("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 10, 1.0, 3)
	for i, r := range unclean.Results[:3] {
		if i == 1 {
			continue
		}
		r.Clean = flag(false)
		for j, run := range r.Runs {
			run.Clean = flag(i == 0 && j != 1 && j != 4)
		}
	}
	docs["unclean.json"] = unclean
	// event.json: the same points waiting for completions with events.
	event := newDoc("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 10, 1.0, 3)
	for _, r := range event.Results {
		r.Completion = "event"
		r.Params["completion"] = raw("event")
	}
	docs["event.json"] = event
	// sessions/: a point measured in sessions a day apart, whose
	// write_lat 64 B drifts from one to the next by about half a percent
	// (slow by session): fw-A and fw-B the same firmware three times each,
	// fw-C one session 10% slower.
	for label, drift := range map[string][]float64{"fw-A": {1.0, 1.005, 0.996}, "fw-B": {1.004, 0.997, 1.002}, "fw-C": {1.10}} {
		for i, f := range drift {
			started := fmt.Sprintf("2026-11-%02dT10:00:00Z", 20+i+3*int(label[3]-'A'))
			docs[fmt.Sprintf("sessions/%s-%d.json", label, i+1)] = newDoc(label, "0.3.0", "bbb2222", "20.35.2000", started, 5, f, i)
		}
	}
	// history/: twenty nightly sessions (5 runs each), write_lat 64 B 10%
	// slower from the 18th on; the session-to-session noise is the
	// jitter's phase.
	for i := range 20 {
		slow := 1.0
		if i >= 17 {
			slow = 1.10
		}
		started := fmt.Sprintf("2026-11-%02dT02:00:00Z", i+1)
		docs[fmt.Sprintf("history/night-%02d.json", i+1)] = newDoc("nightly", "0.3.0", "bbb2222", "20.35.2000", started, 5, slow*(1+0.004*float64(i%3-1)), i%7)
	}
	files := map[string][]byte{}
	for name, d := range docs {
		var b bytes.Buffer
		if err := document.Encode(&b, d); err != nil {
			fail(err)
		}
		files[name] = b.Bytes()
	}
	// schema3.json: a document of a schema this rdma-bench does not read.
	files["schema3.json"] = bytes.Replace(files["few-new.json"], []byte(`"schema_version": 2`), []byte(`"schema_version": 3`), 1)
	notRDMA, err := json.MarshalIndent(map[string]any{"tool": map[string]any{"name": "fio", "version": "3.33"},
		"jobs": []any{map[string]any{"jobname": "randread"}}}, "", "  ")
	if err != nil {
		fail(err)
	}
	files["notrdma.json"] = append(notRDMA, '\n')
	for _, sub := range []string{"sessions", "history"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			fail(err)
		}
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		fail(err)
	}
	return b
}

func flag(b bool) *bool { return &b }

func num(v float64) *float64 { return &v }

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		fail(err)
	}
	return t
}

// newDoc is one suite invocation: write_lat and tcp_lat at 64 B and
// 4 KiB, write_bw and tcp_bw at 64 KiB, each measured runs times. slow
// scales write_lat 64 B's latency; phase shifts the runs' jitter.
func newDoc(label, version, commit, fw, started string, runs int, slow float64, phase int) *doc {
	res := []*result{
		latency("write_lat", "RC", 64, 2.0*slow, runs, phase),
		latency("write_lat", "RC", 4096, 5.0, runs, phase),
		latency("tcp_lat", "TCP", 64, 10.0, runs, phase),
		latency("tcp_lat", "TCP", 4096, 14.0, runs, phase),
		bandwidth("write_bw", "RC", 65536, 9.0, runs, phase),
		bandwidth("tcp_bw", "TCP", 65536, 5.0, runs, phase),
	}
	args := []string{"rdma-bench", "suite", "--loopback", "--repeat", fmt.Sprint(runs), "--save"}
	if label != "" {
		args = append(args, "--label", label)
	}
	// The runs follow the document's start, as a suite's do.
	shift := at(started).Sub(at("2026-11-20T10:00:00Z"))
	for _, r := range res {
		for _, run := range r.Runs {
			run.StartedAt = run.StartedAt.Add(shift)
		}
	}
	return &doc{
		Tool: document.Tool{Name: document.ToolName, Version: version, Commit: commit},
		Host: document.Host{Hostname: "node1", Kernel: "6.1.0-18-amd64", CPUModel: "Test CPU @ 3.00GHz", Cores: 2, RDMACore: "44.0"},
		Device: &document.Device{Name: "mlx5_0", FirmwareVersion: fw, Driver: "mlx5_core", Port: 1,
			LinkLayer: "Ethernet", MTU: 4096, GIDType: "RoCE v2", GIDIndex: 3},
		Label: label, Repeat: runs, StartedAt: at(started), Args: args, Results: res,
	}
}

// jitter is run i's relative deviation: within +-0.25%, plus 0.04% per phase.
func jitter(i, phase int) float64 {
	return (float64((i*7+phase)%10)-4.5)*0.00055 + float64(phase)*0.0004
}

// samples are one run's 1000 latencies in ns around median m µs: a body
// from 0.9 m to 1.1 m and a tail to 1.5 m.
func samples(m float64) []int64 {
	out := make([]int64, 1000)
	for i := range out {
		q := (float64(i) + 0.5) / 1000
		v := m * (0.9 + 0.2*q/0.98)
		if q > 0.98 {
			v = m * (1.1 + 20*(q-0.98))
		}
		out[i] = int64(math.Round(v * 1000))
	}
	return out
}

func latencyFigures(ns []int64) (*document.Latency, string) {
	s := slices.Clone(ns)
	slices.Sort(s)
	rank := func(p float64) *float64 {
		r := int(math.Ceil(float64(len(s)) * p / 100))
		return num(float64(s[max(r, 1)-1]) / 1000)
	}
	var sum, sq float64
	h := hdrhistogram.New(1, 3_600_000_000_000, 3)
	for _, v := range s {
		sum += float64(v) / 1000
		h.RecordValue(v)
	}
	mean := sum / float64(len(s))
	for _, v := range s {
		sq += (float64(v)/1000 - mean) * (float64(v)/1000 - mean)
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		fail(err)
	}
	return &document.Latency{Min: rank(0), P50: rank(50), P90: rank(90), P99: rank(99), P99_9: rank(99.9),
		P99_99: rank(99.99), Max: rank(100), Mean: num(round(mean)), Stdev: num(round(math.Sqrt(sq / float64(len(s)))))}, string(enc)
}

func round(v float64) float64 { return math.Round(v*1e6) / 1e6 }

func costs(local, remote float64) document.Costs {
	return document.Costs{Local: num(round(local)), Remote: num(round(remote)), Total: num(round(local + remote))}
}

func params(w, transport string, size, iters int) map[string]json.RawMessage {
	p := map[string]any{"workload": w, "transport": transport, "completion": "poll", "size_bytes": size, "iterations": iters,
		"duration_s": 0, "warmup": 100, "tx_depth": 64, "rx_depth": 16, "cq_mod": 32, "post_list": 1,
		"inline_bytes": 220, "qps": 1, "threads": 1, "mtu": 4096, "bidir": false, "imm": false, "validate": false,
		"rdma_cm": false, "gid_index": 3, "device": "mlx5_0", "port": 1}
	if transport == "TCP" {
		for _, k := range []string{"tx_depth", "rx_depth", "cq_mod", "inline_bytes", "mtu", "gid_index", "port"} {
			p[k] = 0
		}
		p["device"] = ""
	}
	out := map[string]json.RawMessage{}
	for k, v := range p {
		out[k] = raw(v)
	}
	return out
}

func latency(w, transport string, size int, m float64, runs, phase int) *result {
	var all []int64
	var rs []*document.Run
	for i := range runs {
		ns := samples(m * (1 + jitter(i, phase)))
		all = append(all, ns...)
		lat, hist := latencyFigures(ns)
		cpu := 1.5 * m * (1 + jitter(i+3, phase))
		rs = append(rs, &document.Run{Run: i + 1, StartedAt: at(fmt.Sprintf("2026-11-20T10:%02d:00Z", i)), Figures: document.Figures{
			Status: document.StatusOK, Samples: int64(len(ns)), Ops: 1000, Bytes: uint64(1000 * size), ElapsedNS: int64(2 * m * 1e6),
			LatencyUS: lat, Histogram: hist,
			CPUUSPerOp: costs(cpu/2, cpu/2), CPUSPerGB: costs(cpu/2*1e3/float64(size), cpu/2*1e3/float64(size))}})
	}
	lat, hist := latencyFigures(all)
	return &result{Workload: w, Transport: transport, Completion: "poll", Kind: document.KindLatency,
		SizeBytes: size, Iterations: 1000, Figures: document.Figures{Status: document.StatusOK,
			Samples: int64(len(all)), Ops: uint64(len(all)), Bytes: uint64(len(all) * size),
			ElapsedNS: int64(2 * m * 1e6 * float64(runs)), LatencyUS: lat, Histogram: hist,
			CPUUSPerOp: costs(0.75*m, 0.75*m), CPUSPerGB: costs(0.75*m*1e3/float64(size), 0.75*m*1e3/float64(size))},
		LatencyExact: flag(true), Received: uint64(len(all)),
		Clock: "tsc", ClockSampleNS: 21.5, Params: params(w, transport, size, 1000), Runs: rs}
}

func bandwidth(w, transport string, size int, bw float64, runs, phase int) *result {
	var rs []*document.Run
	for i := range runs {
		b := round(bw * (1 + jitter(i, phase)))
		rate := round(b * 1e3 / 8 / float64(size))
		gb := 0.5 * (1 + jitter(i+5, phase))
		rs = append(rs, &document.Run{Run: i + 1, StartedAt: at(fmt.Sprintf("2026-11-20T11:%02d:00Z", i)), Figures: document.Figures{
			Status: document.StatusOK, Ops: 5000, Bytes: uint64(5000 * size), ElapsedNS: int64(5000 * float64(size) * 8 / b),
			BwGbps: num(b), BwMiBps: num(round(b * 1e9 / 8 / 1048576)), MsgRateMpps: num(rate),
			CPUUSPerOp: costs(gb/2*float64(size)/1e3, gb/2*float64(size)/1e3), CPUSPerGB: costs(gb/2, gb/2)}})
	}
	return &result{Workload: w, Transport: transport, Completion: "poll", Kind: document.KindBandwidth,
		SizeBytes: size, Iterations: 5000, Figures: document.Figures{Status: document.StatusOK,
			Ops: uint64(5000 * runs), Bytes: uint64(5000 * size * runs),
			ElapsedNS: int64(5000 * float64(size) * 8 / bw * float64(runs)),
			BwGbps:    num(bw), BwMiBps: num(round(bw * 1e9 / 8 / 1048576)), MsgRateMpps: num(round(bw * 1e3 / 8 / float64(size))),
			CPUUSPerOp: costs(0.25*float64(size)/1e3, 0.25*float64(size)/1e3), CPUSPerGB: costs(0.25, 0.25)},
		BwPeakGbps: num(round(bw * 1.05)),
		Clock:      "tsc", ClockSampleNS: 21.5, Params: params(w, transport, size, 5000), Runs: rs}
}
