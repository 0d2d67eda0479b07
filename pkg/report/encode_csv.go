package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// csvEncoder writes a header row naming every unit, then one row per
// result. Unknown figures are empty cells; numbers are written in full
// precision.
type csvEncoder struct{}

var csvHeader = []string{
	"workload", "transport", "completion", "kind", "status", "size_bytes", "iterations", "duration_s", "warmup",
	"samples", "out_of_range", "lat_exact",
	"lat_min_us", "lat_p50_us", "lat_p90_us", "lat_p99_us", "lat_p99_9_us", "lat_p99_99_us",
	"lat_max_us", "lat_mean_us", "lat_stdev_us",
	"bytes", "ops", "elapsed_ns",
	"bw_peak_gbps", "bw_gbps", "bw_mibps", "msg_rate_mpps",
	"cpu_local_pct_core", "cpu_remote_pct_core",
	"cpu_local_us_per_op", "cpu_remote_us_per_op",
	"cpu_local_s_per_gb", "cpu_remote_s_per_gb",
	"cpu_total_us_per_op", "cpu_total_s_per_gb", "cpu_one_process",
	"validation", "clock", "tx_depth", "rx_depth", "cq_mod", "post_list", "inline_bytes", "qps", "threads",
	"mtu", "bidir", "imm", "atomic", "device", "port", "gid_index", "runs", "rate_ops", "achieved_ops", "loaders", "loaders_gbps", "clean", "at_tick", "reason",
	"expect_met", "expect", "thin",
}

// Encode implements [Encoder].
func (csvEncoder) Encode(w io.Writer, doc *Document) error {
	if doc == nil {
		return errNilDocument
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return fmt.Errorf("encode csv: %w", err)
	}
	for _, r := range validResults(doc) {
		if err := cw.Write(csvRow(r, Summarize(r))); err != nil {
			return fmt.Errorf("encode csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("encode csv: %w", err)
	}
	return nil
}

func csvRow(r *Result, s Summary) []string {
	row := []string{
		r.Workload, r.Transport, r.Completion, r.Kind.String(), r.Status,
		strconv.Itoa(r.SizeBytes), strconv.Itoa(r.Iterations), exact(r.DurationS), strconv.Itoa(r.Warmup),
	}
	if l := s.Latency; l != nil {
		row = append(row, strconv.FormatInt(l.Count, 10), strconv.FormatInt(r.OutOfRange, 10),
			strconv.FormatBool(l.Exact),
			exact(l.MinUS()), exact(l.P50US()), exact(l.P90US()), exact(l.P99US()),
			exact(l.P99_9US()), exact(l.P99_99US()), exact(l.MaxUS()),
			exact(l.MeanUS()), exact(l.StdevUS()))
	} else {
		row = append(row, "0", strconv.FormatInt(r.OutOfRange, 10), "", "", "", "", "", "", "", "", "", "")
	}
	row = append(row, strconv.FormatUint(r.Bytes, 10), strconv.FormatUint(r.Ops, 10),
		strconv.FormatInt(r.ElapsedNS, 10))
	if peak := knownPositive(r.PeakBandwidthGbps); peak > 0 {
		row = append(row, exact(peak))
	} else {
		row = append(row, "")
	}
	if b := s.Bandwidth; b != nil {
		row = append(row, exact(b.BwGbps), exact(b.BwMiBps), exact(b.MsgRateMpps))
	} else {
		row = append(row, "", "", "")
	}
	row = append(row,
		optional(pctCoreValue(s.CPULocal)), optional(pctCoreValue(s.CPURemote)),
		optional(perOp(s.CPULocal)), optional(perOp(s.CPURemote)),
		optional(perGBValue(s.CPULocal)), optional(perGBValue(s.CPURemote)),
		optional(perOp(s.CPUTotal)), optional(perGBValue(s.CPUTotal)), strconv.FormatBool(r.CPU.OneProcess))
	p, itoa := r.Params, strconv.Itoa
	row = append(row, r.Validation, r.Clock, itoa(p.TxDepth), itoa(p.RxDepth), itoa(p.CQMod), itoa(p.PostList),
		itoa(p.InlineBytes), itoa(p.QPs), itoa(p.Threads), itoa(p.MTU), strconv.FormatBool(p.Bidir),
		strconv.FormatBool(p.Imm), p.Atomic, p.Device, itoa(p.Port), itoa(p.GIDIndex), itoa(max(len(r.Runs), 1)), itoa(p.Rate), achievedCell(r), itoa(p.Loaders), loadersCell(r), cleanCell(r.Counters), tickCell(s), reasonCell(r))
	met, says := expectCells(r.Expectations)
	return append(row, met, says, thinCell(s))
}

// reasonCell says why a row's figures need a second look: the status's
// reason and, for a run whose counters are a caveat (not clean, or other
// than the expected packets on the wire), what they saw, in the table's
// note's words ("counters: client: not clean: ...; within ...").
func reasonCell(r *Result) string {
	out := r.Reason
	if said, caveat, _ := countersSaid(r); caveat {
		if out != "" {
			out += "; "
		}
		out += "counters: " + said
	}
	return out
}

// thinCell names the latency percentiles of the row that are from fewer
// samples than they need ([display.Thin]), space-separated: "p99.9
// p99.99"; empty when none is, or for a bandwidth row.
func thinCell(s Summary) string {
	l := s.Latency
	if l == nil {
		return ""
	}
	var thin []string
	for _, c := range display.LatPercentiles() {
		if display.Thin(c.Q, l.Count) {
			thin = append(thin, "p"+strconv.FormatFloat(c.Q, 'f', -1, 64))
		}
	}
	return strings.Join(thin, " ")
}

// expectCells are the expectations' verdicts: whether every one was met
// (true, false, or empty without any), and each in words, "; " between.
func expectCells(xs []document.Expectation) (met, says string) {
	if len(xs) == 0 {
		return "", ""
	}
	all := true
	var texts []string
	for _, x := range xs {
		all = all && x.Pass
		texts = append(texts, x.Text())
	}
	return strconv.FormatBool(all), strings.Join(texts, "; ")
}

// tickCell says whether a latency median sat at the scheduler's tick
// ([AtTick]): true or false, empty for a bandwidth result.
func tickCell(s Summary) string {
	if s.Latency == nil {
		return ""
	}
	return strconv.FormatBool(s.Latency.AtTick())
}

func pctCoreValue(c *CPUCost) *float64 {
	if c == nil {
		return nil
	}
	v := c.Usage.ProcessPctOfCore
	return &v
}

// optional formats v, or an empty cell when it is unknown.
func optional(v *float64) string {
	if v == nil {
		return ""
	}
	return exact(*v)
}

// cleanCell is the counters' verdict: true, false, or empty when unknown.
func cleanCell(c *NICCounters) string {
	if c == nil || c.Clean == nil {
		return ""
	}
	return strconv.FormatBool(*c.Clean)
}

// loadersCell is the loaders' bandwidth together in Gb/s (--loaders),
// empty without loaders.
func loadersCell(r *Result) string {
	if r.Loaded == nil {
		return ""
	}
	return strconv.FormatFloat(r.Loaded.Gbps(r.SizeBytes), 'g', -1, 64)
}

// achievedCell is an open loop's achieved rate, empty for anything else.
func achievedCell(r *Result) string {
	if a, ok := r.AchievedOPS(); ok {
		return exact(a)
	}
	return ""
}
