// Package counters snapshots an RDMA port's counters before and after the
// timed part of a benchmark run, turns the two snapshots into deltas with
// units, judges whether the run was clean (no retransmission or error
// counter moved), and checks the packet and byte figures against a model of
// what the run should have put on the wire.
package counters
