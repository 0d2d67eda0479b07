// Package catalog is rdma-bench's vocabulary of what it measures: the
// workloads (name, family, operation, kind, transports, baseline) and the
// parameters of a point (which are its identity, their absent and usual
// values). The measuring engine and the readers of saved documents use the
// same tables; the package is cgo-free.
package catalog

import (
	"fmt"
	"slices"
	"strings"
)

// Family is what a workload runs on: RDMA queue pairs or a TCP socket.
type Family int

// Families.
const (
	RDMA Family = iota
	TCP
)

// Op is the operation a workload measures.
type Op int

// Operations. TCP workloads send messages.
const (
	OpWrite Op = iota
	OpRead
	OpSend
	OpAtomic
)

// Workload is one row of the table: every workload, RDMA and TCP, runs
// through the same harness, parameters and figures.
type Workload struct {
	Name   string
	Family Family
	Op     Op
	Kind   Kind
	// Transports lists the transports the workload can use, the default
	// first.
	Transports []string
	// Equivalent names the tools whose measurement this one reproduces.
	Equivalent string
	// Baseline is the TCP workload an RDMA workload is compared with.
	Baseline string
}

// Latency reports whether the workload measures latency.
func (w Workload) Latency() bool { return w.Kind == Latency }

// Supports reports whether the workload can run over transport.
func (w Workload) Supports(transport string) bool { return slices.Contains(w.Transports, transport) }

// PingPong reports whether a latency sample is half the round trip of a
// ping-pong (WRITE, SEND, TCP) rather than the full round trip of one
// operation (READ, atomics), as perftest measures them.
func (w Workload) PingPong() bool { return w.Op == OpWrite || w.Op == OpSend }

// table is every workload.
var table = []Workload{
	// Equivalent to: `ib_write_lat -s 2 -n 1000`.
	{Name: "write_lat", Op: OpWrite, Kind: Latency, Transports: []string{"RC", "UC"}, Equivalent: "ib_write_lat", Baseline: "tcp_lat"},
	// Equivalent to: `ib_read_lat -s 2 -n 1000`.
	{Name: "read_lat", Op: OpRead, Kind: Latency, Transports: []string{"RC"}, Equivalent: "ib_read_lat", Baseline: "tcp_lat"},
	// Equivalent to: `ib_send_lat -s 2 -n 1000`.
	{Name: "send_lat", Op: OpSend, Kind: Latency, Transports: []string{"RC", "UC", "UD"}, Equivalent: "ib_send_lat", Baseline: "tcp_lat"},
	// Equivalent to: `ib_atomic_lat -A FETCH_AND_ADD -n 1000`.
	{Name: "atomic_lat", Op: OpAtomic, Kind: Latency, Transports: []string{"RC"}, Equivalent: "ib_atomic_lat", Baseline: "tcp_lat"},
	// Equivalent to: `ib_write_bw -s 65536 -n 5000`.
	{Name: "write_bw", Op: OpWrite, Kind: Bandwidth, Transports: []string{"RC", "UC"}, Equivalent: "ib_write_bw", Baseline: "tcp_bw"},
	// Equivalent to: `ib_read_bw -s 65536 -n 5000`.
	{Name: "read_bw", Op: OpRead, Kind: Bandwidth, Transports: []string{"RC"}, Equivalent: "ib_read_bw", Baseline: "tcp_bw"},
	// Equivalent to: `ib_send_bw -s 65536 -n 5000`.
	{Name: "send_bw", Op: OpSend, Kind: Bandwidth, Transports: []string{"RC", "UC", "UD"}, Equivalent: "ib_send_bw", Baseline: "tcp_bw"},
	// Equivalent to: `ib_atomic_bw -A FETCH_AND_ADD -n 5000`.
	{Name: "atomic_bw", Op: OpAtomic, Kind: Bandwidth, Transports: []string{"RC"}, Equivalent: "ib_atomic_bw", Baseline: "tcp_bw"},
	// Equivalent to: `sockperf ping-pong -m 2`, `qperf HOST tcp_lat`.
	{Name: "tcp_lat", Family: TCP, Op: OpSend, Kind: Latency, Transports: []string{"TCP"}, Equivalent: "sockperf ping-pong, qperf tcp_lat"},
	// Equivalent to: `iperf3 -c HOST -l 64K`, `qperf HOST tcp_bw`.
	{Name: "tcp_bw", Family: TCP, Op: OpSend, Kind: Bandwidth, Transports: []string{"TCP"}, Equivalent: "iperf3, qperf tcp_bw"},
}

// All returns every workload, in the table's order.
func All() []Workload { return slices.Clone(table) }

// Names lists every workload's name, RDMA first.
func Names() []string {
	names := make([]string, len(table))
	for i, w := range table {
		names[i] = w.Name
	}
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

// Baseline returns the TCP workload an RDMA workload is compared with,
// for the suite's comparison (report.BaselineEncoder).
func Baseline(workload string) (string, bool) {
	w, err := Lookup(workload)
	if err != nil || w.Baseline == "" {
		return "", false
	}
	return w.Baseline, true
}

// Where lists the names of the workloads for which ok holds, for messages.
func Where(ok func(Workload) bool) string {
	var names []string
	for _, w := range table {
		if ok(w) {
			names = append(names, w.Name)
		}
	}
	return strings.Join(names, ", ")
}

// IsTCP says whether a result of workload over transport is a TCP
// baseline: the workload's family, or for a workload this table does not
// know (a document from another version), the transport.
func IsTCP(workload, transport string) bool {
	if w, err := Lookup(workload); err == nil {
		return w.Family == TCP
	}
	return transport == "TCP"
}

// LoaderOf is the bandwidth workload that loads a latency workload's
// device in a loaded-latency run (--loaders): its counterpart of the same
// operation; false for one that has none loaders can stream (atomics,
// TCP, a bandwidth workload).
func LoaderOf(w Workload) (Workload, bool) {
	if w.Family != RDMA || !w.Latency() || w.Op == OpAtomic {
		return Workload{}, false
	}
	for _, b := range table {
		if b.Family == RDMA && b.Op == w.Op && !b.Latency() {
			return b, true
		}
	}
	return Workload{}, false
}
