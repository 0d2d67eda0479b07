// Package engine runs rdma-bench's measured loops in C: the RDMA engine that
// posts and polls work requests on libibverbs queue pairs (rdma.go), the
// socket loops of the TCP baseline (sock.go), the clock both read
// (clock.go) and the CPU readings that bound a timed part (cpu.go).
//
// Everything done per operation (post, poll, send, receive, wait for the
// peer's byte, take a timestamp) happens in C inside one cgo call per run
// or per batch of samples; Go sets the loops up and turns their raw
// timestamps into figures afterwards. The queue pairs, completion queues
// and memory regions the RDMA engine drives are pkg/verbs objects.
//
// Every loop call returns a Status: done, full (take the samples, or print
// a live figure, and call again), past its deadline, stopped, or failed.
package engine

/*
#cgo LDFLAGS: -libverbs
*/
import "C"
