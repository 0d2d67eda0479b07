// Package point holds what names a measured point and needs no RDMA
// device, so that the readers, the gate and the expectations can use it
// without cgo: message sizes and amounts of memory, parsed from the
// command line (ParseSize, ParseSizes, ParseMemory). pkg/workloads, the
// measuring half, builds on it.
package point
