// Package verbs is rdma-bench's layer over rdma-core's libibverbs: devices,
// ports, GIDs, protection domains, completion queues, memory regions and
// queue pairs, each a Go object that owns its verbs resource and has an
// idempotent, nil-safe Close.
//
// It is the only package of rdma-bench that uses cgo. The measured data path
// runs in C inside one cgo call per run or batch (see engine.go); the
// one-off posts and polls here serve set-up and tests. The TCP baseline's
// send/receive loops live here too (sockloop.go), so that RDMA and TCP are
// timed by the same C clock (clock.h) with the same per-batch design.
package verbs

/*
#cgo LDFLAGS: -libverbs
#include <stdlib.h>
#include "shim.h"
*/
import "C"
