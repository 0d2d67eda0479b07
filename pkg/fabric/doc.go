// Package fabric is rdma-bench's fabric mode: one process per host (or per
// NIC), started by the cluster's own launcher, measures every host pair to
// find the bad cable, port or switch.
//
// No MPI library is linked. A run goes through five steps:
//
//  1. [DetectWorld] reads the launcher's environment (Open MPI's mpirun,
//     MPICH's mpiexec and other PMI launchers, Slurm's srun, a Kubernetes
//     Indexed Job) or --rank/--world-size to learn this process's rank and
//     the number of processes.
//  2. [Rendezvous]: rank 0 runs a coordinator (a TCP listener), every rank
//     learns its address (through the launcher's PMI-1 key-value store,
//     --coordinator HOST:PORT or a file in a shared --rendezvous-dir) and
//     registers itself; rank 0 checks that every rank runs the same version
//     with the same parameters and hands out the member list.
//  3. [Session.Sweep] walks a [Schedule] of rounds in lockstep through rank 0:
//     in a round each host is in at most one [Pair], whose Dst serves and
//     whose Src measures through an injected [Measurer]; results go to rank 0.
//     A rank that dies or falls silent loses its pairs (marked failed with
//     the reason) and the rest of the sweep goes on.
//  4. Rank 0 re-measures the suspects ([FindSuspects]: the pairs worse than
//     their metric's median in the sweep), each alternately with the
//     median pair, one pair at a time, until a paired interval confirms
//     or clears it ([Recheck]).
//  5. Rank 0 holds one [Document], whose pairs are in a [PairLog] (a file
//     each round is appended to, read back a pass at a time, so that rank 0
//     does not hold the sweep); [Document.Matrix] gives a src x dst matrix
//     per metric, [Document.Outliers] the confirmed outliers, and
//     [ExitStatus] the process's exit status.
//
// Every network read has a deadline and every wait ends when its context is
// cancelled.
package fabric
