package workloads

import "github.com/rdma-bench/rdma-bench/pkg/catalog"

// The workload table is package catalog's (cgo-free), shared with the
// readers of saved documents.
type (
	Workload = catalog.Workload
	Family   = catalog.Family
	Op       = catalog.Op
)

// Families and operations (package catalog).
const (
	RDMA     = catalog.RDMA
	TCP      = catalog.TCP
	OpWrite  = catalog.OpWrite
	OpRead   = catalog.OpRead
	OpSend   = catalog.OpSend
	OpAtomic = catalog.OpAtomic
)

// The table's lookups (package catalog).
var (
	All      = catalog.All
	Names    = catalog.Names
	Lookup   = catalog.Lookup
	Baseline = catalog.Baseline
	where    = catalog.Where
)
