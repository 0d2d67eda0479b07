// Package workloads runs rdma-bench's benchmarks: it sets up devices,
// memory and queue pairs through pkg/verbs, connects two sides over the
// exchange, drives the C engine, and hands plain results to pkg/report.
//
// One engine serves every workload; a workload is a row of the table
// below: an operation, latency or bandwidth, and the transports it can use.
package workloads

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// Op is the RDMA operation a workload measures.
type Op int

// Operations.
const (
	OpWrite Op = iota
	OpRead
	OpSend
	OpAtomic
)

func (o Op) String() string { return [...]string{"write", "read", "send", "atomic"}[o] }

// Workload is one benchmark.
type Workload struct {
	Name string
	Op   Op
	Kind report.Kind
	// Transports lists the queue pair types the workload can run on.
	Transports []string
	// Perftest is the perftest tool it replaces.
	Perftest string
}

// Latency reports whether the workload measures latency.
func (w Workload) Latency() bool { return w.Kind == report.Latency }

// Supports reports whether the workload can run over transport.
func (w Workload) Supports(transport string) bool {
	for _, t := range w.Transports {
		if t == transport {
			return true
		}
	}
	return false
}

// table is every RDMA workload. Latency of WRITE and SEND is half the
// round trip of a ping-pong; of READ and atomics, the full round trip of one
// operation; as perftest measures them.
var table = []Workload{
	// Equivalent to: `ib_write_lat -s 64 -n 1000`.
	{Name: "write_lat", Op: OpWrite, Kind: report.Latency, Transports: []string{"RC", "UC"}, Perftest: "ib_write_lat"},
	// Equivalent to: `ib_read_lat -s 64 -n 1000`.
	{Name: "read_lat", Op: OpRead, Kind: report.Latency, Transports: []string{"RC"}, Perftest: "ib_read_lat"},
	// Equivalent to: `ib_send_lat -s 64 -n 1000`.
	{Name: "send_lat", Op: OpSend, Kind: report.Latency, Transports: []string{"RC", "UC", "UD"}, Perftest: "ib_send_lat"},
	// Equivalent to: `ib_atomic_lat -A FETCH_AND_ADD -n 1000`.
	{Name: "atomic_lat", Op: OpAtomic, Kind: report.Latency, Transports: []string{"RC"}, Perftest: "ib_atomic_lat"},
	// Equivalent to: `ib_write_bw -s 65536 -n 5000`.
	{Name: "write_bw", Op: OpWrite, Kind: report.Bandwidth, Transports: []string{"RC", "UC"}, Perftest: "ib_write_bw"},
	// Equivalent to: `ib_read_bw -s 65536 -n 5000`.
	{Name: "read_bw", Op: OpRead, Kind: report.Bandwidth, Transports: []string{"RC"}, Perftest: "ib_read_bw"},
	// Equivalent to: `ib_send_bw -s 65536 -n 5000`.
	{Name: "send_bw", Op: OpSend, Kind: report.Bandwidth, Transports: []string{"RC", "UC", "UD"}, Perftest: "ib_send_bw"},
	// Equivalent to: `ib_atomic_bw -A FETCH_AND_ADD -n 5000`.
	{Name: "atomic_bw", Op: OpAtomic, Kind: report.Bandwidth, Transports: []string{"RC"}, Perftest: "ib_atomic_bw"},
}

// Names lists the RDMA workloads.
func Names() []string {
	names := make([]string, len(table))
	for i, w := range table {
		names[i] = w.Name
	}
	sort.Strings(names)
	return names
}

// Lookup finds a workload by name; the error lists the choices.
func Lookup(name string) (Workload, error) {
	for _, w := range table {
		if w.Name == name {
			return w, nil
		}
	}
	return Workload{}, fmt.Errorf("unknown workload %q: choose one of %s", name, strings.Join(Names(), ", "))
}
