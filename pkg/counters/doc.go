// Package counters snapshots an RDMA port's counters before and after the
// timed part of a benchmark run, turns the two snapshots into deltas with
// units, judges whether the run was clean (no retransmission or error
// counter moved), and checks the packet and byte figures against a model of
// what the run should have put on the wire, so that a benchmark's figures
// can be checked against something it did not compute itself.
//
// Use: Take (or Reader.Take) before and after the timed loop, Diff, then
// Deltas.Clean for the verdict and Deltas.Important for what to show;
// Expect a Workload and Expectation.Check the deltas. Nothing is fatal but
// a bad device or port: what cannot be read is recorded in
// Snapshot.Unavailable and RunHealth.Warnings, and a verdict without
// counters says "counters unavailable".
//
// A snapshot reads every file of ports/<port>/counters/ (IBA PMA),
// ports/<port>/hw_counters/ and <device>/hw_counters/, whatever the driver
// calls them, the RDMA netlink statistic (RDMA_NLDEV_CMD_STAT_GET) and the
// port's netdev statistics. Counters are classified by a documented table
// (IBA PMA, rxe, mlx5) and, for names it lacks, by a conservative
// name-pattern rule (Classify).
//
// What soft-RoCE exposes, how rxe acknowledges, what loopback bypasses and
// what is assumed rather than verified: docs/counters.md.
package counters
