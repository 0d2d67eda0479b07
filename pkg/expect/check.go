package expect

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// CheckPlan refuses, before anything runs, an expectation that could
// never be judged: one that selects none of the points, or that asks for
// a share of a link rate the port does not give (linkGbps 0; device and
// port name it).
func CheckPlan(es []Expectation, points []Point, linkGbps float64, device string, port int) error {
	for _, e := range es {
		selected := false
		for _, p := range points {
			selected = selected || e.Selects(p)
		}
		if !selected {
			return fmt.Errorf("%s %q selects no point of this run (%s): check its selectors and that its metric %s is one these points have",
				e.Source, e.Text, describe(points), e.Metric.Name)
		}
		if e.Link && linkGbps <= 0 {
			where := "the port's link rate is unknown"
			if device != "" {
				where = fmt.Sprintf("the link rate of %s port %d is unknown (/sys/class/infiniband/%s/ports/%d/rate)", device, port, device, port)
			}
			return fmt.Errorf("%s %q: %s: give the floor in Gb/s instead, such as bw>=20Gb/s", e.Source, e.Text, where)
		}
	}
	return nil
}

// describe lists points for a message: "write_bw 64 B and 64 KiB
// (bandwidth)".
func describe(points []Point) string {
	sizes := map[string][]int{}
	var names []string
	for _, p := range points {
		kind := "bandwidth"
		if p.Latency {
			kind = "latency"
		}
		k := p.Workload + " (" + kind + ")"
		if sizes[k] == nil {
			names = append(names, k)
		}
		sizes[k] = append(sizes[k], p.Size)
	}
	var out []string
	for _, k := range names {
		sort.Ints(sizes[k])
		var s []string
		for _, n := range sizes[k] {
			if len(s) == 0 || s[len(s)-1] != display.Size(n) {
				s = append(s, display.Size(n))
			}
		}
		name, kind, _ := strings.Cut(k, " ")
		out = append(out, name+" "+strings.Join(s, ", ")+" "+kind)
	}
	return strings.Join(out, "; ")
}

// Check is the verdict on r (a point of the document, or one run of it)
// of every expectation that selects it, in their order; linkGbps is the
// port's rate (0: unknown).
func Check(es []Expectation, r *document.Result, linkGbps float64) []document.Expectation {
	var out []document.Expectation
	p := PointOf(r)
	for _, e := range es {
		if e.Selects(p) {
			out = append(out, e.check(r, linkGbps))
		}
	}
	return out
}

func (e Expectation) check(r *document.Result, linkGbps float64) document.Expectation {
	o := document.Expectation{Expect: e.Text, Source: e.Source, Metric: e.Metric.Name, Op: e.Op, Limit: e.Limit, Unit: e.Metric.Unit}
	var notes []string
	if e.Link {
		both := ""
		ref := linkGbps
		if r.Param("bidir") == "true" {
			ref, both = 2*linkGbps, ", both ways"
		}
		o.Limit = e.Limit / 100 * ref
		notes = append(notes, fmt.Sprintf("%s%% of the %s Gb/s link%s", num(e.Limit), num(linkGbps), both))
	}
	o.Value = e.Metric.Value(&r.Figures)
	switch {
	case e.Link && linkGbps <= 0:
		notes = append(notes, "the link rate is unknown")
	case o.Value == nil:
		notes = append(notes, "the point has no "+e.Metric.What+" figure")
	default:
		o.Pass = holds(*o.Value, e.Op, o.Limit)
	}
	if r.Status != "" && r.Status != document.StatusOK {
		notes = append(notes, "the point is "+r.Status)
	}
	o.Note = strings.Join(notes, "; ")
	return o
}

func holds(v float64, op string, limit float64) bool {
	switch op {
	case ">=":
		return v >= limit
	case ">":
		return v > limit
	case "<=":
		return v <= limit
	case "<":
		return v < limit
	}
	return false
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func sorted(s []string) []string { sort.Strings(s); return s }

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := err.(interface{ Unwrap() error }); ok && pe.Unwrap() != nil {
		return pe.Unwrap()
	}
	return err
}
