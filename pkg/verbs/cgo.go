// Package verbs is rdma-bench's layer over rdma-core's libibverbs: devices,
// ports, GIDs, protection domains, completion queues, memory regions and
// queue pairs, each a Go object that owns its verbs resource and has an
// idempotent, nil-safe Close.
//
// It is pyverbs' scope in Go: the libibverbs and librdmacm object model, and
// nothing measured. The measured loops run in C in pkg/engine, which drives
// these objects through their Raw handles; the one-off posts and polls here
// serve set-up, validation and tests.
package verbs

/*
#cgo LDFLAGS: -libverbs
#include <stdlib.h>
#include "shim.h"
*/
import "C"
