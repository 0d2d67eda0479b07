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
// Snapshot.Unavailable and Verdict.Warnings, and a verdict without
// counters says "counters unavailable".
//
// A snapshot reads every file of ports/<port>/counters/ (IBA PMA),
// ports/<port>/hw_counters/ and <device>/hw_counters/, whatever the driver
// calls them, the RDMA netlink statistic (RDMA_NLDEV_CMD_STAT_GET) and the
// port's netdev statistics. Counters are classified by a documented table
// (IBA PMA, rxe, mlx5) and, for names it lacks, by a conservative
// name-pattern rule (Classify).
//
// Found on soft-RoCE (rxe, Debian 12 kernel 6.1.0-56, measured in the
// repository's QEMU VM; details and figures in docs/counters.md):
//
//   - rxe has only ports/1/hw_counters/: sent_pkts, rcvd_pkts,
//     duplicate_request, out_of_seq_request, rcvd_rnr_err, send_rnr_err,
//     rcvd_seq_err, ack_deferred (scheduling, not an error),
//     retry_exceeded_err, retry_rnr_exceeded_err, completer_retry_err,
//     send_err, link_downed, rdma_sends, rdma_recvs, plus ib_core's
//     lifespan setting. No PMA counters/ (so no port_xmit_data: rxe has no
//     byte counter at all) and no device-level hw_counters/. RDMA netlink
//     gives the same 15 counters.
//   - sysfs hw_counters are served from a cache refreshed at most every
//     lifespan ms (12 ms); netlink reads the driver every time, so deltas
//     prefer the netlink copy.
//   - rxe sets AckReq on the last packet of a message and on every 66th
//     packet within it, and its responder ACKs every AckReq packet, a
//     duplicate WRITE or SEND again: no coalescing (AcksRXE, exact).
//   - Between QPs of one rxe device packets are looped back inside rxe: they
//     never reach IP, the qdisc or the netdev counters, so tc netem on lo or
//     dummy0 does not delay RDMA. Two rxe devices on a veth pair with policy
//     routing do pass the veth qdisc (netem 1 ms each way: ib_write_lat
//     t_min +1.1 ms), and the veths' byte counters equal the model's
//     NetdevBytes exactly.
//   - Under QEMU emulation RC runs often retransmit (duplicate_request,
//     completer_retry_err move): such runs are not clean, and Check
//     accepts their extra packets only as far as the counted
//     retransmissions explain them.
//
// Assumed, not verified here: InfiniBand PMA port_xmit_data counts LRH
// through ICRC (IBA's definition); which headers RoCE hardware counts in
// port_xmit_data (Check accepts transport bytes up to whole frames); how
// hardware coalesces ACKs (AcksAny allows one ACK for the run up to one per
// request packet).
package counters
