package workloads

import (
	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// echo copies s into the parameters a result reports.
func echo(s point.Spec, p *report.Params) {
	p.Workload, p.Transport, p.Completion, p.SizeBytes = s.Workload, s.Transport, s.Completion(), s.Size
	p.Iterations, p.DurationS, p.Warmup = s.Iterations, s.Duration.Seconds(), s.Warmup
	p.TxDepth, p.RxDepth, p.CQMod, p.PostList = s.TxDepth, s.RxDepth, s.CQMod, s.PostsPerCall()
	p.QPs, p.Threads, p.Bidir, p.Imm, p.Atomic = max(s.QPs, 1), s.ThreadCount(), s.Bidir, s.Imm, s.Atomic
	p.Validate, p.RDMACM, p.Rate, p.SRQ, p.Mcast = s.Validate, s.RDMACM, s.Rate, s.SRQ, s.Mcast
	if w, _ := catalog.Lookup(s.Workload); w.Family == catalog.RDMA {
		p.PageBytes = s.PageBytes()
	}
}

// NotReached is the result of a point the run stopped before measuring:
// its parameters as asked, no figure, status partial with why. A document
// cut short then lists every point it was asked for, so that no view reads
// a shorter sweep as a complete one.
func NotReached(s point.Spec, why string) *report.Result {
	w, _ := catalog.Lookup(s.Workload)
	res := &report.Result{Kind: w.Kind, Status: report.StatusPartial, Reason: why}
	echo(s, &res.Params)
	return res
}
