package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// BaselineEncoder is the encoder of `rdma-bench suite`: every result of a
// document next to its baseline of the same size and completion mode
// (RDMA against TCP), latency percentiles, bandwidth and CPU cost, with
// the ratio of each figure to the baseline's. Baseline names the workload
// a result is compared with (false: it is a baseline itself, or has
// none); nil takes the workload table's ([catalog.Baseline]), a test
// supplies its own.
type BaselineEncoder struct {
	Baseline func(workload string) (string, bool)
}

// Encode implements [Encoder].
func (c BaselineEncoder) Encode(w io.Writer, doc *Document) error {
	if doc == nil {
		return errNilDocument
	}
	if c.Baseline == nil {
		c.Baseline = catalog.Baseline
	}
	ew := &display.ErrWriter{W: w}
	writeTableHeader(ew, doc)
	results := validResults(doc)
	key := func(workload string, r *Result) string {
		return workload + "/" + strconv.Itoa(r.SizeBytes) + "/" + r.Completion
	}
	byKey := map[string]*Result{}
	for _, r := range results {
		byKey[key(r.Workload, r)] = r
	}
	var lat, bw [][]string
	var notes []string
	for _, r := range results {
		name, ok := c.Baseline(r.Workload)
		if !ok {
			continue
		}
		base := byKey[key(name, r)]
		if isLatency(r) {
			lat = append(lat, latencyComparison(r, base))
		} else {
			bw = append(bw, bandwidthComparison(r, base))
		}
		for _, x := range []*Result{r, base} {
			if x != nil && x.Status != "" && x.Status != StatusOK {
				notes = append(notes, fmt.Sprintf("%s %d bytes: %s: %s", x.Workload, x.SizeBytes, x.Status, x.Reason))
			}
			if x != nil && display.Unclean(cleanOf(x)) {
				notes = append(notes, fmt.Sprintf("%s %d bytes: counters: %s", x.Workload, x.SizeBytes, x.Counters.Verdict))
			}
			if x != nil {
				for _, f := range document.FailedExpectations(x.Expectations) {
					notes = append(notes, fmt.Sprintf("%s %d bytes: expect: %s", x.Workload, x.SizeBytes, f))
				}
			}
			if latencyOf(x).AtTick() {
				notes = append(notes, fmt.Sprintf("%s %d bytes: warning: %s", x.Workload, x.SizeBytes, display.TickWarning))
			}
		}
	}
	ew.Printf("completion: %s; each row against its baseline in the same mode\n", modes(results))
	if line := settingsLine(results); line != "" {
		ew.Printf("%s\n", line)
	}
	if len(lat) > 0 {
		ew.Printf("\n%s\n", display.LatencyMeaning)
		if err := renderComparison(ew, []any{"#bytes", "workload", "samples", "p50[usec]", "p99[usec]", "p99.9[usec]",
			"baseline", "base p50[usec]", "base p99[usec]", "p50 ratio", "cpu/op[usec]", "base cpu/op[usec]"}, lat); err != nil {
			return err
		}
	}
	if len(bw) > 0 {
		ew.Printf("\nbandwidth: cpu/GB adds both sides' process CPU\n")
		if err := renderComparison(ew, []any{"#bytes", "workload", "ops", "BW[Gb/s]", "MsgRate[Mpps]", "baseline",
			"base BW[Gb/s]", "BW ratio", "cpu/GB[s]", "base cpu/GB[s]", "cpu/GB ratio"}, bw); err != nil {
			return err
		}
	}
	if sum := ExpectationSummary(results); sum != "" {
		notes = append(notes, sum)
	}
	seen := map[string]bool{}
	for _, n := range notes {
		if !seen[n] {
			seen[n] = true
			ew.Printf("note: %s\n", n)
		}
	}
	if ew.Err != nil {
		return fmt.Errorf("writing comparison: %w", ew.Err)
	}
	return nil
}

// latencyOf is r's latency figures, nil for none.
func latencyOf(r *Result) *LatencyStats {
	if r == nil || !isLatency(r) {
		return nil
	}
	return Summarize(r).Latency
}

// modes lists the completion modes of the results' transports, such as
// "RC poll, TCP poll".
func modes(results []*Result) string {
	var out []string
	for _, r := range results {
		m := r.Transport + " " + r.Completion
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return strings.Join(out, ", ")
}

// settingsLine names the ways of running ([ways]) of the results, as the
// run table's titles do, for the suite's table, which has no titles:
// "settings: post_api=ex, srq=true (send_lat, send_bw)" (in order of
// first appearance), a way that not
// every RDMA result has naming the workloads that have it; "" when none
// has any.
func settingsLine(results []*Result) string {
	var order []string
	on := map[string][]string{} // a way: the workloads with it
	count := map[string]int{}   // a way: the results with it
	rdma := 0
	for _, r := range results {
		if r.Transport != "TCP" {
			rdma++
		}
		for _, w := range ways(r.Params) {
			if _, ok := on[w]; !ok {
				order = append(order, w)
			}
			count[w]++
			if !slices.Contains(on[w], r.Workload) {
				on[w] = append(on[w], r.Workload)
			}
		}
	}
	if len(order) == 0 {
		return ""
	}
	parts := make([]string, len(order))
	for i, w := range order {
		parts[i] = w
		if count[w] < rdma {
			parts[i] += " (" + strings.Join(on[w], ", ") + ")"
		}
	}
	return "settings: " + strings.Join(parts, ", ")
}

func renderComparison(w io.Writer, header []any, rows [][]string) error {
	tbl := display.NewTable(w, true, header...)
	for _, r := range rows {
		if err := tbl.Append(r); err != nil {
			return fmt.Errorf("writing comparison: %w", err)
		}
	}
	if err := tbl.Render(); err != nil {
		return fmt.Errorf("writing comparison: %w", err)
	}
	for _, n := range display.Footnotes(rows) {
		if _, err := fmt.Fprintln(w, n); err != nil {
			return fmt.Errorf("writing comparison: %w", err)
		}
	}
	return nil
}

// num formats the figure f returns from s, "-" when s is nil.
func num[T any](s *T, f func(*T) float64, prec int) string {
	if s == nil {
		return "-"
	}
	return display.Figure(f(s), prec)
}

// pct formats the percentile q of l, marked when l has too few samples.
func pct(l *LatencyStats, q float64, f func(*LatencyStats) float64) string {
	if l == nil {
		return "-"
	}
	return display.Percentile(f(l), q, l.Count, 3)
}

// samples formats l's sample count.
func samples(l *LatencyStats) string {
	if l == nil {
		return "-"
	}
	return display.Samples(l.Count)
}

// ratio formats a/b, "-" when either is unknown or b is 0.
func ratio[T any](a, b *T, f func(*T) float64) string {
	if a == nil || b == nil || f(b) == 0 {
		return "-"
	}
	return display.Figure(f(a)/f(b), 2)
}

func p50(l *LatencyStats) float64       { return l.P50US() }
func p99(l *LatencyStats) float64       { return l.P99US() }
func p999(l *LatencyStats) float64      { return l.P99_9US() }
func bwGbps(b *BandwidthStats) float64  { return b.BwGbps }
func msgRate(b *BandwidthStats) float64 { return b.MsgRateMpps }
func perOpUS(c *CPUCost) float64        { return c.MicrosPerOp }
func perGBS(c *CPUCost) float64         { return c.SecondsPerGB }

// perOp and perGB are the CPU figures of a cost that has them.
func perOpOf(c *CPUCost) *CPUCost {
	if c == nil || !c.HasPerOp {
		return nil
	}
	return c
}

func perGBOf(c *CPUCost) *CPUCost {
	if c == nil || !c.HasPerGB {
		return nil
	}
	return c
}

func latencyComparison(r, base *Result) []string {
	s, b := Summarize(r), Summarize(base)
	name := "-"
	if base != nil {
		name = display.RowName(base.Workload, cleanOf(base))
	}
	return []string{strconv.Itoa(r.SizeBytes), display.RowName(r.Workload, cleanOf(r)), samples(s.Latency),
		num(s.Latency, p50, 3), pct(s.Latency, 99, p99), pct(s.Latency, 99.9, p999), name,
		num(b.Latency, p50, 3), pct(b.Latency, 99, p99), ratio(s.Latency, b.Latency, p50),
		num(perOpOf(s.CPULocal), perOpUS, 2), num(perOpOf(b.CPULocal), perOpUS, 2)}
}

func bandwidthComparison(r, base *Result) []string {
	s, b := Summarize(r), Summarize(base)
	name := "-"
	if base != nil {
		name = display.RowName(base.Workload, cleanOf(base))
	}
	return []string{strconv.Itoa(r.SizeBytes), display.RowName(r.Workload, cleanOf(r)), strconv.FormatUint(r.Ops, 10),
		num(s.Bandwidth, bwGbps, 3), num(s.Bandwidth, msgRate, 4), name,
		num(b.Bandwidth, bwGbps, 3), ratio(s.Bandwidth, b.Bandwidth, bwGbps),
		num(perGBOf(s.CPUTotal), perGBS, 3), num(perGBOf(b.CPUTotal), perGBS, 3),
		ratio(perGBOf(s.CPUTotal), perGBOf(b.CPUTotal), perGBS)}
}
