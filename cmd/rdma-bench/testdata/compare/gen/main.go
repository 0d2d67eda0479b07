// Command gen writes the fixture documents of the compare, plot and report
// tests (cmd/rdma-bench/testdata/compare/*.json), to docs/json.md's schema:
//
//	go run ./cmd/rdma-bench/testdata/compare/gen
//
// Every run's latency samples are made from a formula, so the documents
// are the same on every run of the generator: exact nearest-rank
// percentiles in latency_us, and the samples' HdrHistogram (1 ns to 1 h,
// 3 significant digits) in histogram.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"
)

type obj = map[string]any

func main() {
	dir := "cmd/rdma-bench/testdata/compare"
	docs := map[string]obj{
		"base.json":     document("base", "0.2.0", "aaa1111", "20.31.1014", "2026-11-20T10:00:00Z", 10, 1.0, 0),
		"same.json":     document("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 10, 1.0, 3),
		"slower.json":   document("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 10, 1.10, 3),
		"few-base.json": document("base", "0.2.0", "aaa1111", "20.31.1014", "2026-11-20T10:00:00Z", 3, 1.0, 0),
		"few-new.json":  document("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 3, 1.0, 3),
	}
	partial := document("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 3, 1.0, 3)
	r := partial["results"].([]obj)[0]
	r["status"], r["reason"] = "partial", "run 3: interrupted: the peer stopped answering"
	run := r["runs"].([]obj)[2]
	run["status"], run["reason"] = "partial", "interrupted: the peer stopped answering"
	docs["partial.json"] = partial
	qps := document("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 3, 1.0, 3)
	for _, r := range qps["results"].([]obj) {
		if r["workload"] == "write_bw" {
			r["params"].(obj)["qps"] = 4
		}
	}
	docs["qps4.json"] = qps
	schema := document("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 3, 1.0, 3)
	schema["schema_version"] = 3
	docs["schema3.json"] = schema
	subset := document("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 10, 1.0, 3)
	subset["results"] = []obj{subset["results"].([]obj)[0], subset["results"].([]obj)[1],
		latency("send_lat", "RC", 64, 2.2, 10, 3)}
	docs["subset.json"] = subset
	bwOnly := document("", "0.2.0", "aaa1111", "20.31.1014", "2026-11-20T10:00:00Z", 3, 1.0, 0)
	delete(bwOnly, "label")
	bwOnly["results"] = bwOnly["results"].([]obj)[4:]
	docs["bw-only.json"] = bwOnly
	// unclean.json: the port counters moved in runs 2 and 5 of write_lat
	// 64 B and in every run of tcp_lat 64 B (rxe retransmits).
	unclean := document("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 10, 1.0, 3)
	for i, r := range unclean["results"].([]obj)[:3] {
		if i == 1 {
			continue
		}
		r["clean"] = false
		for j, run := range r["runs"].([]obj) {
			run["clean"] = i == 0 && j != 1 && j != 4
		}
	}
	docs["unclean.json"] = unclean
	// event.json: the same points waiting for completions with events.
	event := document("candidate", "0.3.0", "bbb2222", "20.35.2000", "2026-11-21T10:00:00Z", 10, 1.0, 3)
	for _, r := range event["results"].([]obj) {
		r["completion"] = "event"
		r["params"].(obj)["completion"] = "event"
	}
	docs["event.json"] = event
	docs["notrdma.json"] = obj{"tool": obj{"name": "fio", "version": "3.33"}, "jobs": []obj{{"jobname": "randread"}}}
	for name, d := range docs {
		b, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			panic(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// document is one suite invocation: write_lat and tcp_lat at 64 B and
// 4 KiB, write_bw and tcp_bw at 64 KiB, each measured runs times. slow
// scales write_lat 64 B's latency; phase shifts the runs' jitter.
func document(label, version, commit, fw, started string, runs int, slow float64, phase int) obj {
	res := []obj{
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
	return obj{
		"schema_version": 2,
		"tool":           obj{"name": "rdma-bench", "version": version, "commit": commit},
		"host":           obj{"hostname": "node1", "kernel": "6.1.0-18-amd64", "cpu_model": "Test CPU @ 3.00GHz", "cores": 2, "rdma_core": "44.0"},
		"device": obj{"name": "mlx5_0", "firmware_version": fw, "driver": "mlx5_core", "port": 1,
			"link_layer": "Ethernet", "mtu": 4096, "gid_type": "RoCE v2", "gid_index": 3},
		"label": label, "repeat": runs, "started_at": started,
		"args":    args,
		"results": res,
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

func latencyFigures(ns []int64) (obj, string) {
	s := slices.Clone(ns)
	slices.Sort(s)
	rank := func(p float64) float64 {
		r := int(math.Ceil(float64(len(s)) * p / 100))
		return float64(s[max(r, 1)-1]) / 1000
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
		panic(err)
	}
	return obj{"min": rank(0), "p50": rank(50), "p90": rank(90), "p99": rank(99), "p99_9": rank(99.9),
		"p99_99": rank(99.99), "max": rank(100), "mean": round(mean), "stdev": round(math.Sqrt(sq / float64(len(s))))}, string(enc)
}

func round(v float64) float64 { return math.Round(v*1e6) / 1e6 }

func costs(local, remote float64) obj {
	return obj{"local": round(local), "remote": round(remote), "total": round(local + remote)}
}

func params(w, transport string, size, iters int) obj {
	p := obj{"workload": w, "transport": transport, "completion": "poll", "size_bytes": size, "iterations": iters,
		"duration_s": 0, "warmup": 100, "tx_depth": 64, "rx_depth": 16, "cq_mod": 32, "post_list": 1,
		"inline_bytes": 220, "qps": 1, "threads": 1, "mtu": 4096, "bidir": false, "imm": false, "validate": false,
		"rdma_cm": false, "gid_index": 3, "device": "mlx5_0", "port": 1}
	if transport == "TCP" {
		for _, k := range []string{"tx_depth", "rx_depth", "cq_mod", "inline_bytes", "mtu", "gid_index", "port"} {
			p[k] = 0
		}
		p["device"] = ""
	}
	return p
}

func latency(w, transport string, size int, m float64, runs, phase int) obj {
	var all []int64
	var rs []obj
	for i := range runs {
		ns := samples(m * (1 + jitter(i, phase)))
		all = append(all, ns...)
		lat, hist := latencyFigures(ns)
		cpu := 1.5 * m * (1 + jitter(i+3, phase))
		rs = append(rs, obj{"run": i + 1, "started_at": fmt.Sprintf("2026-11-20T10:%02d:00Z", i), "status": "ok",
			"ops": 1000, "bytes": 1000 * size, "elapsed_ns": int64(2 * m * 1e6), "latency_us": lat, "histogram": hist,
			"bw_gbps": nil, "bw_mibps": nil, "msg_rate_mpps": nil,
			"cpu_us_per_op": costs(cpu/2, cpu/2), "cpu_s_per_gb": costs(cpu/2*1e3/float64(size), cpu/2*1e3/float64(size))})
	}
	lat, hist := latencyFigures(all)
	return obj{"workload": w, "transport": transport, "completion": "poll", "kind": "latency", "status": "ok",
		"size_bytes": size, "iterations": 1000, "latency_us": lat, "latency_exact": true, "histogram": hist,
		"samples": len(all), "out_of_range": 0, "bytes": len(all) * size, "ops": len(all),
		"elapsed_ns": int64(2 * m * 1e6 * float64(runs)), "received": len(all),
		"bw_gbps": nil, "bw_peak_gbps": nil, "bw_mibps": nil, "msg_rate_mpps": nil,
		"cpu_us_per_op": costs(0.75*m, 0.75*m), "cpu_s_per_gb": costs(0.75*m*1e3/float64(size), 0.75*m*1e3/float64(size)),
		"clock": "tsc", "clock_sample_ns": 21.5, "params": params(w, transport, size, 1000), "runs": rs}
}

func bandwidth(w, transport string, size int, bw float64, runs, phase int) obj {
	var rs []obj
	for i := range runs {
		b := round(bw * (1 + jitter(i, phase)))
		rate := round(b * 1e3 / 8 / float64(size))
		gb := 0.5 * (1 + jitter(i+5, phase))
		rs = append(rs, obj{"run": i + 1, "started_at": fmt.Sprintf("2026-11-20T11:%02d:00Z", i), "status": "ok",
			"ops": 5000, "bytes": 5000 * size, "elapsed_ns": int64(5000 * float64(size) * 8 / b),
			"bw_gbps": b, "bw_mibps": round(b * 1e9 / 8 / 1048576), "msg_rate_mpps": rate,
			"cpu_us_per_op": costs(gb/2*float64(size)/1e3, gb/2*float64(size)/1e3), "cpu_s_per_gb": costs(gb/2, gb/2)})
	}
	return obj{"workload": w, "transport": transport, "completion": "poll", "kind": "bandwidth", "status": "ok",
		"size_bytes": size, "iterations": 5000, "samples": 0, "out_of_range": 0, "bytes": 5000 * size * runs,
		"ops": 5000 * runs, "elapsed_ns": int64(5000 * float64(size) * 8 / bw * float64(runs)), "received": 0,
		"bw_gbps": bw, "bw_peak_gbps": round(bw * 1.05), "bw_mibps": round(bw * 1e9 / 8 / 1048576),
		"msg_rate_mpps": round(bw * 1e3 / 8 / float64(size)),
		"cpu_us_per_op": costs(0.25*float64(size)/1e3, 0.25*float64(size)/1e3), "cpu_s_per_gb": costs(0.25, 0.25),
		"clock": "tsc", "clock_sample_ns": 21.5, "params": params(w, transport, size, 5000), "runs": rs}
}
