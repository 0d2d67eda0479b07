package workloads

import (
	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// NotReached is the result of a point the run stopped before measuring:
// its parameters as asked, no figure, status partial with why. A document
// cut short then lists every point it was asked for, so that no view reads
// a shorter sweep as a complete one.
func NotReached(s point.Spec, why string) *report.Result {
	w, _ := catalog.Lookup(s.Workload)
	return &report.Result{Params: report.ParamsOf(s), Kind: w.Kind, Status: report.StatusPartial, Reason: why}
}
