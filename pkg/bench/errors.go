package bench

import "github.com/rdma-bench/rdma-bench/internal/inputerr"

// inputError builds an error caused by what the user typed (a flag's
// value, an argument, a point the device cannot run), marked as package
// inputerr does: a command exits 2 on it.
func inputError(format string, a ...any) error { return inputerr.New(format, a...) }
