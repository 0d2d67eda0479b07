// Package tcp is rdma-bench's TCP baseline: tcp_lat (ping-pong, half the
// round trip, like ib_write_lat, sockperf ping-pong and qperf tcp_lat) and
// tcp_bw (a one-way stream, like ib_send_bw, qperf tcp_bw and iperf3),
// measured the way the RDMA workloads are so that the two compare.
//
// The data path runs outside the Go runtime: the data socket is taken
// out of the netpoller (its descriptor duplicated and set blocking) and
// driven in C by verbs.SockLoop, pkg/verbs' socket counterpart of the RDMA
// engine, with plain send/recv system calls, MSG_NOSIGNAL, one cgo call
// per run or per chunk of samples, on an OS thread locked to the measuring
// goroutine and optionally pinned to a CPU. Short transfers and EINTR are
// retried; the idle timeout bounds every blocking call (a watchdog that
// shuts the socket down, rather than SO_RCVTIMEO and SO_SNDTIMEO, which
// would arm a kernel timer at every wait), so a peer that dies or goes
// silent ends the run with an error; cancelling stops the loop and shuts
// the socket down. --report-interval makes the loop return at each tick
// for the live figures. Nothing is
// allocated per iteration: tcp_lat takes one clock reading per iteration
// (verbs.Now's clock, the RDMA engine's) into a buffer allocated
// beforehand, and Go takes it every 4096 samples (iteration mode keeps
// every sample; duration mode folds them into a report.LatencyRecorder,
// in bounded memory).
//
// Completion modes (report.Params.Completion): "block", blocking calls
// where the thread sleeps in the kernel until data arrives (the analogue
// of RDMA's "event" mode), and "busy" (Config.BusyPoll), non-blocking
// calls (MSG_DONTWAIT) spun on in the same thread, with SO_BUSY_POLL asked
// for (it needs CAP_NET_ADMIN and a NAPI device to matter), the analogue
// of RDMA's "poll" mode and the lowest latency.
//
// The control connection (pkg/exchange) carries the handshake, the
// barrier between warm-up and the timed phase, and the server's figures:
// its CPU usage and, for tcp_bw, the bytes it received and its own first
// to last byte time. Both sides sample their CPU usage around the timed
// phase only.
package tcp
