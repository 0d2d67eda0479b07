package bench

import (
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/point"
)

// SuiteWorkloads are what the suite measures at every size: the RDMA
// workloads and their TCP baselines.
var SuiteWorkloads = []string{"write_lat", "read_lat", "send_lat", "tcp_lat", "write_bw", "read_bw", "send_bw", "tcp_bw"}

// SuitePoint is how long a suite point runs unless -n or -D says otherwise.
const SuitePoint = time.Second

// SuiteSpecs are the suite's points: every one of SuiteWorkloads at every
// size of list, each with the shared flags that apply to it.
func (b *Flags) SuiteSpecs(list []int) []point.Spec {
	var specs []point.Spec
	for _, s := range list {
		for _, name := range SuiteWorkloads {
			w, _ := catalog.Lookup(name)
			sp := b.Spec.Only(w)
			sp.Size = s
			specs = append(specs, sp)
		}
	}
	return specs
}
