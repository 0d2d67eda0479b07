package exchange

import "github.com/rdma-bench/rdma-bench/internal/safetext"

// Sanitize makes text from a peer safe to print: see [safetext.Sanitize].
func Sanitize(s string) string { return safetext.Sanitize(s) }
