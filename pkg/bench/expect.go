package bench

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/expect"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// Expect is run's and suite's --expect: absolute floors (or ceilings) on
// the points' figures (package expect). A point that fails one is
// written like any other, its verdicts with it, and the run exits 1.
type Expect struct {
	values []string
	// List is what Check read.
	List []expect.Expectation
}

// Register adds --expect to fs.
func (e *Expect) Register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&e.values, "expect", nil, "an expectation on every point it selects, such as 'bw>=90%link', 'lat.p50<=3us' or 'size=64K qps=4 bw>=20Gb/s' (quoted for the shell), or @FILE for a file of them, one a line (repeatable): a point that fails one makes the exit status 1")
}

// Check reads the expectations; a bad one is bad input.
func (e *Expect) Check() error {
	list, err := expect.ParseAll(e.values)
	if err != nil {
		return inputError("%v", err)
	}
	e.List = list
	return nil
}

// CheckPlan refuses, before anything runs, an expectation the points
// cannot judge: one that selects none of them, or a share of a link rate
// the port does not give.
func (e *Expect) CheckPlan(pts Points) error {
	if e == nil || len(e.List) == 0 {
		return nil
	}
	var points []expect.Point
	for _, s := range pts.Specs {
		w, _ := catalog.Lookup(s.Workload)
		points = append(points, expect.Point{Workload: s.Workload, Transport: s.Transport, Size: s.Size,
			QPs: max(s.QPs, 1), Threads: max(s.Threads, 1), Latency: w.Latency()})
	}
	link, dev, port := 0.0, "", 0
	if d := pts.Device; d != nil {
		link, dev, port = d.LinkRateGbps, d.Name, d.Port
	}
	if err := expect.CheckPlan(e.List, points, link, dev, port); err != nil {
		return inputError("%v", err)
	}
	return nil
}

// judge gives every result (merged) the verdicts of the expectations that
// select it, and returns the failed ones in words; link is the port's
// rate.
func (e *Expect) judge(results []*report.Result, link float64, log func(string)) []string {
	if e == nil || len(e.List) == 0 {
		return nil
	}
	var failed []string
	for _, r := range results {
		d, err := report.ResultRecord(r)
		if err != nil {
			log(fmt.Sprintf("%s %d bytes: no verdict on the expectations: %v", r.Workload, r.SizeBytes, err))
			continue
		}
		r.Expectations = expect.Check(e.List, d, link)
		for _, f := range document.FailedExpectations(r.Expectations) {
			failed = append(failed, fmt.Sprintf("%s %d bytes: %s", r.Workload, r.SizeBytes, f))
		}
	}
	return failed
}
