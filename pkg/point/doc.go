// Package point holds what a measured point asks for and needs no RDMA
// device, so that the readers, the gate and the expectations can use it
// without cgo: the Spec, its shared parameters (the rows of catalog's
// parameter table bound to the Spec's fields: flags, handshake), their
// resolution (Spec.Resolve: defaults filled in and checked against the
// host's Limits), and message sizes and amounts of memory parsed from the
// command line (ParseSize, ParseSizes, ParseMemory). pkg/workloads, the
// measuring half, builds on it.
package point
