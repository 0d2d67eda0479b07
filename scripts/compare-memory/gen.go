//go:build ignore

// gen.go writes the documents of compare's memory measurements
// (docs/investigations/2026-11-26-compare-memory.md): DOCS documents per
// side in OUT/base and OUT/new, each holding the template's points with
// RUNS runs apiece. Run i is the template's run i mod len(runs) with its
// figures (latency percentiles, bandwidth, message rate, CPU costs) scaled
// by a deterministic jitter of +-1% (rounded to 6 decimals, so large
// samples hold ties); the new side's are also scaled by -slow (1.02: 2%
// slower: latency and costs x 1.02, bandwidth and rate x 0.98). Histograms
// are the template's.
//
// Usage:
//
//	go run scripts/compare-memory/gen.go -runs 30000 -docs 1 -out /tmp/cm/30k
//	go run scripts/compare-memory/gen.go -runs 140 -docs 500 -out /tmp/cm/docs
//
// The template (-template) defaults to the compare tests' base.json (6
// points, 10 runs, 61 KB); 140 runs of it make a document of about 730 KB,
// 30,000 one of 154 MB.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
)

type obj = map[string]any

func main() {
	template := flag.String("template", "cmd/rdma-bench/testdata/compare/base.json", "template document")
	runs := flag.Int("runs", 1000, "runs per point in each document")
	docs := flag.Int("docs", 1, "documents per side")
	slow := flag.Float64("slow", 1.02, "the new side's scale factor")
	out := flag.String("out", "", "output directory (base/ and new/ are made in it)")
	flag.Parse()
	if err := gen(*template, *out, *runs, *docs, *slow); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func gen(template, out string, runs, docs int, slow float64) error {
	if out == "" || runs < 1 || docs < 1 {
		return fmt.Errorf("want -out, -runs >= 1 and -docs >= 1")
	}
	raw, err := os.ReadFile(template)
	if err != nil {
		return err
	}
	for _, side := range []struct {
		name  string
		scale float64
	}{{"base", 1}, {"new", slow}} {
		dir := filepath.Join(out, side.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for d := range docs {
			var doc obj
			if err := json.Unmarshal(raw, &doc); err != nil {
				return fmt.Errorf("%s: %w", template, err)
			}
			doc["label"], doc["repeat"] = side.name, runs
			rng := rand.New(rand.NewPCG(uint64(d), map[string]uint64{"base": 1, "new": 2}[side.name]))
			for _, r := range doc["results"].([]any) {
				res := r.(obj)
				res["runs"] = expand(res["runs"].([]any), runs, side.scale, rng)
			}
			b, err := json.MarshalIndent(doc, "", "  ")
			if err != nil {
				return err
			}
			name := filepath.Join(dir, fmt.Sprintf("%s-%05d.json", side.name, d))
			if err := os.WriteFile(name, append(b, '\n'), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// expand makes n runs from the template's, each scaled by its own jitter.
func expand(tmpl []any, n int, scale float64, rng *rand.Rand) []any {
	out := make([]any, n)
	for i := range out {
		b, _ := json.Marshal(tmpl[i%len(tmpl)])
		var run obj
		_ = json.Unmarshal(b, &run)
		run["run"] = i + 1
		f := scale * (1 + (rng.Float64()-0.5)*0.02)
		bw := (2 - scale) * (1 + (rng.Float64()-0.5)*0.02)
		for _, k := range []string{"latency_us", "cpu_us_per_op", "cpu_s_per_gb"} {
			if m, ok := run[k].(obj); ok {
				for kk, v := range m {
					m[kk] = round(v.(float64) * f)
				}
			}
		}
		for _, k := range []string{"bw_gbps", "bw_mibps", "msg_rate_mpps"} {
			if v, ok := run[k].(float64); ok {
				run[k] = round(v * bw)
			}
		}
		out[i] = run
	}
	return out
}

func round(v float64) float64 { return math.Round(v*1e6) / 1e6 }
