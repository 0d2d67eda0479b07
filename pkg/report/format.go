package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/point"
)

// group is a run of results sharing every parameter but size and
// iterations: one table, several sizes as rows.
type group struct {
	first   *Result
	latency bool
	rated   bool // a result has a rate (--rate): rows name it
	loaded  bool // a result has loaders (--loaders): rows name them
	results []*Result
	sums    []Summary // sums[i] = Summarize(results[i])
}

// groupResults splits results into groups in order of first appearance.
func groupResults(results []*Result) []*group {
	var groups []*group
	byKey := map[string]*group{}
	for _, r := range results {
		key := groupKey(r)
		g, ok := byKey[key]
		if !ok {
			g = &group{first: r, latency: isLatency(r)}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.results = append(g.results, r)
		g.sums = append(g.sums, Summarize(r))
		g.rated = g.rated || r.Rate > 0
		g.loaded = g.loaded || r.Params.Loaders > 0
	}
	return groups
}

// groupKey identifies the group of r: its parameters without size,
// iterations, rate and warm-up (capped per size in duration mode, so a
// -D sweep is one table), and whether it is tabulated as latency.
func groupKey(r *Result) string {
	p := r.Params
	p.SizeBytes, p.Iterations, p.Rate, p.Warmup, p.Loaders = 0, 0, 0, 0, 0
	b, err := json.Marshal(p) // maps marshal in key order: deterministic
	if err != nil {
		return fmt.Sprintf("%p", r) // cannot happen for plain data; own group
	}
	return fmt.Sprintf("%t|%s", isLatency(r), b)
}

// groupTitle describes the shared parameters of g on one line.
func groupTitle(g *group) string {
	p := g.first.Params
	kind := "bandwidth"
	if g.latency {
		kind = "latency"
	}
	parts := []string{
		fmt.Sprintf("%s %s %s (%s):", orDash(p.Workload), orDash(p.Transport), orDash(p.Completion), kind),
	}
	add := func(k string, v any) { parts = append(parts, fmt.Sprintf("%s=%v", k, v)) }
	// Zero settings are left out (e.g. queue depths of a TCP test); the
	// JSON output has every parameter.
	addSet := func(k string, v int) {
		if v != 0 {
			add(k, v)
		}
	}
	if p.DurationS > 0 {
		add("duration_s", strconv.FormatFloat(p.DurationS, 'f', -1, 64))
	}
	add("warmup", warmups(g))
	addSet("qps", p.QPs)
	addSet("threads", p.Threads)
	addSet("tx_depth", p.TxDepth)
	addSet("rx_depth", p.RxDepth)
	addSet("cq_mod", p.CQMod)
	addSet("post_list", p.PostList)
	addSet("inline_bytes", p.InlineBytes)
	addSet("mtu", p.MTU)
	if p.Bidir {
		add("bidir", true)
	}
	if p.Imm {
		add("imm", true)
	}
	if p.Atomic != "" {
		add("atomic", p.Atomic)
	}
	if p.Device != "" {
		add("device", p.Device)
		add("port", p.Port)
		add("gid_index", p.GIDIndex)
	}
	parts = append(parts, ways(p)...)
	if p.RDMACM {
		add("rdma_cm", true)
	}
	if c := g.first.Clock; c != "" {
		add("clock", c)
	}
	if n := len(g.first.Runs); n > 1 {
		add("runs", n)
	}
	if g.first.CPU.OneProcess {
		add("cpu", "one process (both sides)")
	}
	for _, k := range slices.Sorted(maps.Keys(p.Extra)) {
		add(k, p.Extra[k])
	}
	return strings.Join(parts, " ")
}

// ways are the ways of running one measurement that change what it
// measures, as perftest's preamble names them ("Using SRQ", its post
// API), each "key=value", where p has one other than the usual: the one
// rule of the run table's title and of the suite's settings line
// ([settingsLine]).
func ways(p Params) []string {
	var out []string
	add := func(k string, v any) { out = append(out, fmt.Sprintf("%s=%v", k, v)) }
	// The post API is named whenever known: its default is the device's
	// (ex where the device has it), so none is usual.
	if p.PostAPI != "" {
		add("post_api", p.PostAPI)
	}
	if p.SRQ {
		add("srq", true)
	}
	if p.Mcast {
		add("mcast_groups", mcastGroups(p))
	}
	// Huge pages only, which --use-hugepages asks for: without it a
	// buffer has the host's pages (4 KiB, 16 or 64 KiB on some arm64
	// hosts), which nobody chose.
	if p.PageBytes >= point.HugePageBytes {
		add("pages", display.Size(p.PageBytes))
	}
	return out
}

// mcastGroups counts the multicast groups of one side, the server's:
// every receiving queue pair has one, and McastGroups holds the server's,
// then, where the client receives too (a latency workload's pongs, -b),
// as many of the client's.
func mcastGroups(p Params) int {
	n := len(p.McastGroups)
	if w, err := catalog.Lookup(p.Workload); p.Bidir || err == nil && w.Latency() {
		return n / 2
	}
	return n
}

// warmups is the group's warm-up, or its range when the sizes differ.
func warmups(g *group) string {
	lo, hi := g.first.Warmup, g.first.Warmup
	for _, r := range g.results {
		lo, hi = min(lo, r.Warmup), max(hi, r.Warmup)
	}
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d..%d (per size; see the JSON)", lo, hi)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// fixed formats v with prec decimals.
func fixed(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }

// exact formats v in the shortest form that reads back as v.
func exact(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
