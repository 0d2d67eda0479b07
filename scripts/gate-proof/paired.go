//go:build ignore

// paired.go reads the documents of `rdma-bench gate` (pools of pairs:
// scripts/gate-proof.sh pool:...) and answers, by resampling their pairs,
// the questions behind the paired gate's design (docs/gate.md):
//
//   - width: for N pairs, the half-width of the change's interval at the
//     gate's confidence, paired (per-pair log ratios, signed-rank) and
//     unpaired (the two sides' runs, Mann-Whitney), over blocks of N
//     consecutive pairs;
//
//   - decide: how often a single look at N pairs fails, passes or is
//     undecided, by each method, against the thresholds given;
//
//   - gate: the whole sequential gate (the first look at -look pairs, later
//     ones grown by -growth, up to -max; alpha spent as the gate spends it)
//     replayed on blocks of consecutive pairs (A/A: false alarms; with a
//     slowdown: power), with the rows' own thresholds.
//
// Usage:
//
//	go run scripts/gate-proof/paired.go [-n 10,20,30,40] [-alpha 0.01] [-rows 5] [-look 10] [-growth 1.5] [-max 40] DOC...
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/gate"
)

func main() {
	ns := flag.String("n", "10,20,30,40", "pairs per look to study")
	alpha := flag.Float64("alpha", 0.01, "the gate's false-alarm budget")
	rows := flag.Int("rows", 5, "gated rows the budget is split over")
	look := flag.Int("look", 10, "pairs of a point at the first look (the gate's --first-look)")
	growth := flag.Float64("growth", 1.5, "each later look when the pairs have grown by this factor (the gate's --look-growth)")
	most := flag.Int("max", 40, "the most pairs of a gate")
	failOn := flag.String("fail-on", "", "thresholds instead of the rows' own (e.g. lat.p50>+5%,bw<-5%)")
	boot := flag.Int("boot", 0, "also replay this many gates on pairs drawn with replacement from each point's pairs (seeded)")
	concat := flag.Bool("concat", false, "join the documents' pairs, point by point in the order given, into one sequence first (gates of the same points)")
	flag.Parse()
	cfgOf := func(m gate.Method) *gate.Config {
		return &gate.Config{Points: make([]gate.Point, *rows), Alpha: *alpha, FirstLook: *look, LookGrowth: *growth, MaxPairs: *most, Method: m}
	}
	// The fixed-n table below tests each window as one final look would:
	// at the confidence of a row's whole share of the budget.
	spend := compare.Spending{Alpha: *alpha, Rows: *rows, Horizon: *most}
	conf := compare.ConfidenceOf(spend.Available(*most, 0, true))
	var th []compare.Threshold
	if *failOn != "" {
		var err error
		if th, err = compare.ParseThresholds(*failOn); err != nil {
			fail(err)
		}
	}
	fmt.Printf("confidence %.4f at a final look (alpha %g over %d rows; looks at %v pairs)\n\n", conf, *alpha, *rows, cfgOf(gate.Paired).Schedule())
	fmt.Println("| document | point | pairs | N | paired half-width | unpaired half-width | paired fail/pass/undecided | unpaired fail/pass/undecided | paired est. (all pairs) |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	var gates []string
	paths := flag.Args()
	joined := map[string]*gate.Document{}
	if *concat && len(paths) > 0 {
		d := load(paths[0])
		for _, p := range paths[1:] {
			join(d, load(p))
		}
		joined["joined"] = d
		paths = []string{"joined"}
	}
	for _, path := range paths {
		d := joined[path]
		if d == nil {
			d = load(path)
		}
		for _, r := range d.Rows {
			t := threshold(r, th)
			all, err := compare.PairedShift(r.Base, r.Candidate, 0.95)
			if err != nil {
				fail(err)
			}
			for _, f := range strings.Split(*ns, ",") {
				n, _ := strconv.Atoi(f)
				if n < 2 || n > len(r.Base) {
					continue
				}
				var wp, wu []float64
				var cp, cu [3]int
				for s := 0; s+n <= len(r.Base); s++ {
					b, c := r.Base[s:s+n], r.Candidate[s:s+n]
					p, _ := compare.PairedShift(b, c, conf)
					u, _ := compare.ShiftInterval(b, c, conf)
					wp, wu = append(wp, half(p)), append(wu, half(u))
					cp[compare.Decide(p, t)]++
					cu[compare.Decide(u, t)]++
				}
				fmt.Printf("| %s | %s | %d | %d | %.1f%% | %.1f%% | %s | %s | %+.1f%% [%+.1f%%, %+.1f%%] |\n", short(path), r.Label(),
					len(r.Base), n, med(wp), med(wu), counts(cp), counts(cu), all.EstimatePct, all.LoPct, all.HiPct)
			}
		}
		for _, m := range []gate.Method{gate.Paired, gate.Unpaired} {
			gates = append(gates, replay(path, d, th, cfgOf(m)))
			if *boot > 0 {
				gates = append(gates, bootstrap(path, d, th, cfgOf(m), *boot))
			}
		}
	}
	fmt.Println()
	fmt.Println("| document | method | gates (blocks) | fail | pass | undecided | mean pairs per point |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, g := range gates {
		fmt.Println(g)
	}
}

// replay runs the sequential gate on every block of up to MaxPairs
// consecutive pairs (one block per start offset).
func replay(path string, d *gate.Document, th []compare.Threshold, c *gate.Config) string {
	n := len(d.Rows[0].Base)
	for _, r := range d.Rows {
		n = min(n, len(r.Base))
	}
	var res [3]int
	pairs, blocks := 0.0, 0
	for s := 0; s+c.FirstLook <= n; s++ {
		outcome, used := sequential(d, th, c, s, min(s+c.MaxPairs, n))
		res[outcome]++
		pairs += used
		blocks++
	}
	return fmt.Sprintf("| %s | %s | %d | %d | %d | %d | %.1f |", short(path), c.Method, blocks, res[compare.Fail],
		res[compare.Pass], res[compare.Undecided], pairs/float64(blocks))
}

// sequential replays one gate on pairs [s, end): the gate's outcome and
// the mean pairs per point it took.
func sequential(d *gate.Document, th []compare.Threshold, c *gate.Config, s, end int) (compare.Decision, float64) {
	m := c.Method
	spend := compare.Spending{Alpha: c.Alpha, Rows: len(c.Points), Horizon: c.MaxPairs}
	decided := make([]compare.Decision, len(d.Rows))
	used := make([]int, len(d.Rows))
	spent := make([]float64, len(d.Rows))
	looks := c.Schedule()
	for j, k := range looks {
		final := j == len(looks)-1 || s+looks[j+1] > end
		if s+k > end {
			break
		}
		for i, r := range d.Rows {
			a := spend.Available(k, spent[i], final)
			if decided[i] != compare.Undecided || !c.CanDecide(k, a) {
				continue
			}
			sh, err := gate.Change(m, r.Base[s:s+k], r.Candidate[s:s+k], compare.ConfidenceOf(a))
			if err != nil {
				fail(err)
			}
			spent[i] += a
			decided[i], used[i] = compare.Decide(sh, threshold(r, th)), k
		}
	}
	out := compare.Pass
	total := 0
	for i := range decided {
		total += used[i]
		switch {
		case decided[i] == compare.Fail:
			out = compare.Fail
		case decided[i] == compare.Undecided && out != compare.Fail:
			out = compare.Undecided
		}
	}
	return out, float64(total) / float64(len(decided))
}

// bootstrap replays n gates, each on MaxPairs pairs per point drawn with
// replacement from that point's pairs: iid, so it keeps no drift, but it
// gives enough gates to see a false-alarm rate near 1%.
func bootstrap(path string, d *gate.Document, th []compare.Threshold, c *gate.Config, n int) string {
	rng := rand.New(rand.NewPCG(1, 2))
	var res [3]int
	pairs := 0.0
	for range n {
		b := &gate.Document{}
		for _, r := range d.Rows {
			q := *r
			q.Base, q.Candidate = make([]float64, c.MaxPairs), make([]float64, c.MaxPairs)
			for i := range q.Base {
				k := rng.IntN(len(r.Base))
				q.Base[i], q.Candidate[i] = r.Base[k], r.Candidate[k]
			}
			b.Rows = append(b.Rows, &q)
		}
		outcome, used := sequential(b, th, c, 0, c.MaxPairs)
		res[outcome]++
		pairs += used
	}
	return fmt.Sprintf("| %s (bootstrap) | %s | %d | %d | %d | %d | %.1f |", short(path), c.Method, n, res[compare.Fail],
		res[compare.Pass], res[compare.Undecided], pairs/float64(n))
}

// join appends e's pairs to d's rows of the same point.
func join(d, e *gate.Document) {
	for _, r := range d.Rows {
		for _, q := range e.Rows {
			if q.Point == r.Point {
				r.Base = append(r.Base, q.Base...)
				r.Candidate = append(r.Candidate, q.Candidate...)
			}
		}
	}
}

func threshold(r *gate.Row, th []compare.Threshold) compare.Threshold {
	for _, t := range th {
		if t.Metric.Name == r.Metric {
			return t
		}
	}
	t, err := compare.ParseThresholds(r.Threshold)
	if err != nil {
		fail(err)
	}
	return t[0]
}

// half is the interval's half-width in percent (the mean of its two
// halves in log units).
func half(s compare.Shift) float64 {
	if math.IsInf(s.LoPct, 0) || math.IsInf(s.HiPct, 0) {
		return math.Inf(1)
	}
	return math.Expm1((math.Log1p(s.HiPct/100)-math.Log1p(s.LoPct/100))/2) * 100
}

func med(x []float64) float64 {
	s := slices.Clone(x)
	sort.Float64s(s)
	return s[len(s)/2]
}

func counts(c [3]int) string {
	n := float64(c[0] + c[1] + c[2])
	return fmt.Sprintf("%.0f/%.0f/%.0f%%", 100*float64(c[compare.Fail])/n, 100*float64(c[compare.Pass])/n, 100*float64(c[compare.Undecided])/n)
}

func short(p string) string {
	parts := strings.Split(p, "/")
	if len(parts) >= 2 {
		return parts[len(parts)-2]
	}
	return p
}

func load(path string) *gate.Document {
	b, err := os.ReadFile(path)
	if err != nil {
		fail(err)
	}
	var d gate.Document
	if err := json.Unmarshal(b, &d); err != nil {
		fail(fmt.Errorf("%s: %w", path, err))
	}
	if d.Kind != document.KindGate || len(d.Rows) == 0 {
		fail(fmt.Errorf("%s: not a gate document with rows", path))
	}
	return &d
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "paired:", err)
	os.Exit(2)
}
