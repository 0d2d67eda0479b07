package results

import "github.com/rdma-bench/rdma-bench/pkg/document"

// The tests read documents as pkg/document does.
var (
	Parse    = document.Parse
	ReadFile = document.ReadFile
)
