//go:build ignore

// resample.go estimates how often the gate fails when nothing changed,
// from documents of one setting measured many times (an A/A set): it
// draws random disjoint splits of the runs into a base and a new side of
// K runs each (the same runs for every point, so that points measured in
// the same run stay together) and gates each split with the thresholds
// given, the way rdma-bench compare does.
//
//	go run scripts/gate-proof/resample.go [-k 5] [-trials 2000] [-fail-on SPEC] [-slow PCT] DIR...
//
// With -slow, the new side is slowed down by that much (a known answer:
// the gate should fail) to estimate the gate's power.
//
// It prints the share of splits that fail (exit 1), are inconclusive
// (exit 3) or pass, and the rows that failed most often.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

func main() {
	k := flag.Int("k", 5, "runs per side")
	trials := flag.Int("trials", 2000, "random splits")
	failOn := flag.String("fail-on", compare.DefaultThresholdSpec, "thresholds")
	seed := flag.Uint64("seed", 1, "random seed")
	slow := flag.Float64("slow", 0, "a slowdown in percent put into the new side: latency and CPU cost times 1+slow/100, bandwidth and message rate divided by it")
	flag.Parse()
	if err := run(*k, *trials, *failOn, *seed, *slow, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "resample:", err)
		os.Exit(2)
	}
}

func run(k, trials int, failOn string, seed uint64, slow float64, paths []string) error {
	th, err := compare.ParseThresholds(failOn)
	if err != nil {
		return err
	}
	docs, err := results.LoadNoting(context.Background(), func(string) {}, paths...)
	if err != nil {
		return err
	}
	pts, err := results.Pool(docs, results.Options{})
	if err != nil {
		return err
	}
	m, err := results.Match(pts, pts, nil)
	if err != nil {
		return err
	}
	all, _ := m.Series(metric.All(), nil, nil)
	var series []compare.Series
	n := -1
	for _, s := range all {
		if n < 0 {
			n = len(s.Base)
		}
		if len(s.Base) != n {
			fmt.Fprintf(os.Stderr, "resample: %s %s has %d runs, not %d: left out\n", s.Point, s.Metric.Name, len(s.Base), n)
			continue
		}
		series = append(series, s)
	}
	if 2*k > n {
		return fmt.Errorf("%d runs per point: too few for two sides of %d", n, k)
	}
	r := rand.New(rand.NewPCG(seed, seed))
	var fail, inconc, pass int
	failedRows := map[string]int{}
	for t := 0; t < trials; t++ {
		perm := r.Perm(n)
		var rows []compare.Row
		for _, s := range series {
			sub := compare.Series{Point: s.Point, Metric: s.Metric}
			for _, i := range perm[:k] {
				sub.Base = append(sub.Base, s.Base[i])
			}
			for _, i := range perm[k : 2*k] {
				v := s.Base[i] * (1 + slow/100)
				if s.Metric.HigherIsBetter {
					v = s.Base[i] / (1 + slow/100)
				}
				sub.New = append(sub.New, v)
			}
			row, err := compare.Compare(sub, compare.DefaultOptions())
			if err != nil {
				return err
			}
			rows = append(rows, row)
		}
		g := compare.Gate(rows, th, false)
		switch g.ExitCode() {
		case compare.ExitRegression:
			fail++
		case compare.ExitInconclusive:
			inconc++
		default:
			pass++
		}
		for _, gr := range g.Rows {
			if gr.Outcome == compare.OutcomeFail {
				failedRows[gr.Point+" "+gr.Metric.Name]++
			}
		}
	}
	fmt.Printf("%d runs per point, %d rows, %d random splits of %d vs %d runs, new side slowed by %g%%, thresholds %s\n", n, len(series), trials, k, k, slow, failOn)
	fmt.Printf("fail (exit 1) %.1f%%, inconclusive (exit 3) %.1f%%, pass %.1f%%\n",
		100*float64(fail)/float64(trials), 100*float64(inconc)/float64(trials), 100*float64(pass)/float64(trials))
	type kv struct {
		row string
		n   int
	}
	var top []kv
	for row, c := range failedRows {
		top = append(top, kv{row, c})
	}
	sort.Slice(top, func(i, j int) bool { return top[i].n > top[j].n })
	for i, e := range top {
		if i == 10 {
			break
		}
		fmt.Printf("  failed in %.1f%% of splits: %s\n", 100*float64(e.n)/float64(trials), e.row)
	}
	return nil
}
