// Package workloads is the measuring half: it runs one resolved point
// (point.Resolved) as a client, a server or both in one process, RDMA and
// TCP through one session, and returns what was measured as a
// report.Result. What a point asks for, its parameters and their
// resolution are package point's, cgo-free; this package adds what needs
// the device and the clock.
//
// A run goes through these phases (session.run says what each does):
//
//	check    Resolve (point.Spec.Resolve with this host's limits),
//	         CheckDevice, MemoryOf, Local's checks: before anything opens
//	connect  the client dials, the server answers (handshake, token,
//	         the server's own check of the Spec it was sent)
//	open     the side's transport: device, PD, CQs, memory and QPs, or
//	         the TCP data listener
//	measure  every worker's active part, then its passive part
//	report   the server's figures to the client, which builds the result
//
// The files, by group:
//
//	entry      harness.go (RunClient, Loopback), server*.go (Server: one
//	           run at a time, pending connections, its log)
//	checks     limits.go (the device's and the clock's limits, Resolve),
//	           local.go (this side's settings), memory.go, odp.go,
//	           device_choice.go, placement.go (NUMA)
//	session    session.go (phases), plan.go (who pings, sends, receives;
//	           per worker: loaded.go's loaders, --loaders),
//	           side.go (the transport's interface), workers.go, thread.go,
//	           ticker.go (--report-interval), lost.go
//	RDMA side  rdma_open.go, rdma_connect.go, rdma_loops.go (the C loops'
//	           calls), rdma_validate.go, rdma_mcast.go, mcast_join.go
//	TCP side   tcp_side.go, tcp_conn.go, tcp_sock.go
//	result     result.go, openloop.go, peak.go, counters.go, link.go,
//	           notreached.go
package workloads
