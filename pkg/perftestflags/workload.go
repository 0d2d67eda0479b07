package perftestflags

import (
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
)

// Workload says what rdma-bench offers for a workload name that is one of
// perftest's programs: its raw Ethernet tests are refused with the
// reason, ib_write_bw and the like name rdma-bench's workload; "" for a
// name that is neither.
func Workload(name string) string {
	switch {
	case strings.HasPrefix(name, "raw_ethernet_"):
		return "perftest's " + name + ": " + raw
	case strings.HasPrefix(name, "ib_"):
		if w, err := catalog.Lookup(strings.TrimPrefix(name, "ib_")); err == nil {
			return "perftest's " + name + " is rdma-bench's " + w.Name
		}
	}
	return ""
}
