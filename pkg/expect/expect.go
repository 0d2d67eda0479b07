// Package expect is rdma-bench's absolute floors: expectations such as
// "bw>=90%link" or "size=64K qps=4 lat.p99<=10us", given with --expect or
// in a file of them (one a line, as cluster suites keep a table of Gb/s
// per size and queue-pair count), and their verdict on a point's figures
// in the saved document. A metric is one of pkg/metric's table; the
// verdict is a document.Expectation, kept with the point (report's views
// say it in words).
package expect

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"github.com/rdma-bench/rdma-bench/pkg/point"
)

// Expectation is one floor (or ceiling) on a metric, for the points its
// selectors choose.
type Expectation struct {
	// Text is the expectation as written; Source where ("--expect", or
	// "floors.txt:3").
	Text, Source string
	// The selectors: a point is chosen when it has every one given ("",
	// 0: any). Without a workload, only RDMA points are: a TCP baseline
	// is chosen by naming it (workload=tcp_bw).
	Workload, Transport string
	Size, QPs, Threads  int
	Metric              metric.Metric
	Op                  string // ">=", ">", "<=" or "<"
	// Limit is in Metric's unit; with Link, a percentage of the port's
	// link rate (bw only; both directions' with -b).
	Limit float64
	Link  bool
}

// ops in the order they are looked for: the two-character ones first.
var ops = []string{">=", "<=", ">", "<"}

// units converts a unit as written into each metric unit's.
var units = map[string]map[string]float64{
	"us":    {"ns": 1e-3, "us": 1, "µs": 1, "ms": 1e3, "s": 1e6},
	"Gb/s":  {"Gb/s": 1, "Gbps": 1, "Gbit/s": 1, "Mb/s": 1e-3, "Mbps": 1e-3, "GB/s": 8, "MiB/s": 8 * (1 << 20) / 1e9},
	"Mpps":  {"Mpps": 1, "Mops": 1, "kpps": 1e-3, "Kpps": 1e-3, "pps": 1e-6},
	"us/op": {"us/op": 1, "us": 1, "ns/op": 1e-3, "ns": 1e-3},
	"s/GB":  {"s/GB": 1, "s": 1},
}

// LinkUnit is how a percentage of the link rate is written: 90%link.
const LinkUnit = "%link"

// Syntax says in a sentence what an expectation is, for messages.
const Syntax = "want [workload=NAME] [size=SIZE] [qps=N] [threads=N] [transport=RC|UC|UD|TCP] METRIC OP VALUE[UNIT], such as 'bw>=90%link' or 'size=64K lat.p50<=3us' (quoted: a shell reads > and <), or @FILE for a file of them"

// Parse reads one expectation written at source.
func Parse(text, source string) (Expectation, error) {
	e := Expectation{Text: strings.Join(strings.Fields(text), " "), Source: source}
	bad := func(format string, a ...any) (Expectation, error) {
		return Expectation{}, fmt.Errorf("%s %q: %s", source, e.Text, fmt.Sprintf(format, a...))
	}
	var cmp strings.Builder
	for _, tok := range strings.Fields(text) {
		key, v, isSel := strings.Cut(tok, "=")
		if !isSel || strings.ContainsAny(key, "<>") || strings.HasPrefix(v, "=") {
			cmp.WriteString(tok) // "bw", ">=", "20Gb/s" may come apart
			continue
		}
		if err := e.selector(key, v); err != nil {
			return bad("%v", err)
		}
	}
	c := cmp.String()
	if c == "" {
		return bad("no comparison: %s", Syntax)
	}
	var name, op, value string
	for _, o := range ops {
		if i := strings.Index(c, o); i >= 0 {
			name, op, value = c[:i], o, c[i+len(o):]
			break
		}
	}
	if op == "" && value == "" {
		if _, err := metric.Lookup(c); err == nil {
			// bw>=90%link unquoted: the shell took ">=90%link" for a
			// redirection (and made a file of it).
			return bad("no comparison: quote the expectation, as in --expect 'bw>=90%%link': a shell reads > and < as redirections")
		}
	}
	if op == "" || name == "" || value == "" {
		return bad("%s", Syntax)
	}
	m, err := metric.Lookup(strings.Replace(name, "p99.9", "p99_9", 1))
	if err != nil {
		return bad("%v", err)
	}
	e.Metric, e.Op = m, op
	if err := e.limit(value); err != nil {
		return bad("%v", err)
	}
	return e, nil
}

// selector reads key=v.
func (e *Expectation) selector(key, v string) error {
	var err error
	switch key {
	case "workload":
		if _, err = catalog.Lookup(v); err == nil {
			e.Workload = v
		}
	case "transport":
		e.Transport = strings.ToUpper(v)
		if !strings.Contains(" RC UC UD TCP ", " "+e.Transport+" ") {
			err = fmt.Errorf("transport=%s: choose RC, UC, UD or TCP", v)
		}
	case "size":
		e.Size, err = point.ParseSize(v)
	case "qps", "threads":
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 1 {
			err = fmt.Errorf("%s=%s: want a whole number from 1", key, v)
		} else if key == "qps" {
			e.QPs = n
		} else {
			e.Threads = n
		}
	default:
		err = fmt.Errorf("unknown selector %q: choose workload, size, qps, threads or transport", key)
	}
	return err
}

// limit reads the value and its unit.
func (e *Expectation) limit(v string) error {
	i := strings.IndexFunc(v, func(r rune) bool { return !strings.ContainsRune("0123456789.+-eE", r) })
	num, unit := v, ""
	if i >= 0 {
		num, unit = v[:i], v[i:]
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
		return fmt.Errorf("value %q: want a positive number, then a unit", v)
	}
	if unit == LinkUnit {
		if e.Metric.Name != metric.BW.Name {
			return fmt.Errorf("%s: a share of the link rate is for bw only", v)
		}
		if f > 100 {
			return fmt.Errorf("%s: above 100%% of the link rate", v)
		}
		e.Limit, e.Link = f, true
		return nil
	}
	if unit == "" {
		unit = e.Metric.Unit
	}
	scale, ok := units[e.Metric.Unit][unit]
	if !ok {
		var known []string
		for u := range units[e.Metric.Unit] {
			known = append(known, u)
		}
		if e.Metric.Name == metric.BW.Name {
			known = append(known, LinkUnit)
		}
		return fmt.Errorf("unit %q for %s: choose %s", unit, e.Metric.Name, strings.Join(sorted(known), ", "))
	}
	e.Limit = f * scale
	return nil
}

// ParseAll reads every --expect value: an expectation, or @FILE for a file
// of them, one a line ("#" starts a comment).
func ParseAll(values []string) ([]Expectation, error) {
	var out []Expectation
	for _, v := range values {
		path, isFile := strings.CutPrefix(v, "@")
		if !isFile {
			e, err := Parse(v, "--expect")
			if err != nil {
				return nil, err
			}
			out = append(out, e)
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--expect @%s: %w", path, unwrapPath(err))
		}
		n := len(out)
		for i, line := range strings.Split(string(b), "\n") {
			line, _, _ = strings.Cut(line, "#")
			if strings.TrimSpace(line) == "" {
				continue
			}
			e, err := Parse(line, fmt.Sprintf("%s:%d", path, i+1))
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		if len(out) == n {
			return nil, fmt.Errorf("--expect @%s: no expectation in the file: %s", path, Syntax)
		}
	}
	return out, nil
}

// Point is what selects a point: its identity in the document.
type Point struct {
	Workload, Transport string
	Size, QPs, Threads  int
	Latency             bool
}

// PointOf is r's identity.
func PointOf(r *document.Result) Point {
	n := func(key string) int { v, _ := strconv.Atoi(r.Param(key)); return v }
	return Point{Workload: r.Workload, Transport: r.Transport, Size: r.SizeBytes, QPs: n("qps"), Threads: n("threads"), Latency: r.IsLatency()}
}

// Selects says whether e applies to p: its selectors, and its metric is
// one p has.
func (e Expectation) Selects(p Point) bool {
	switch {
	case e.Workload == "" && catalog.IsTCP(p.Workload, p.Transport):
		return false
	case e.Workload != "" && e.Workload != p.Workload,
		e.Transport != "" && e.Transport != p.Transport,
		e.Size != 0 && e.Size != p.Size,
		e.QPs != 0 && e.QPs != p.QPs,
		e.Threads != 0 && e.Threads != p.Threads:
		return false
	}
	return e.Metric.AppliesTo(p.Latency)
}
