// The TCP baseline's measured data path: send, receive and timestamps on one
// connected stream socket, all in C, one call per run or per batch of
// samples, as the RDMA engine (engine.h) does for queue pairs.
#ifndef RDMA_BENCH_SOCKLOOP_H
#define RDMA_BENCH_SOCKLOOP_H

#include <stddef.h>
#include <stdint.h>
#include "cpu.h"
#include "status.h"

// Which call failed or waited too long.
enum rb_sock_op {
	RB_SOCK_SEND = 1,
	RB_SOCK_RECV = 2,
};

// Calls return an rb_status (status.h): RB_EOF when the peer ended the
// stream (see partial), RB_IDLE and RB_SYS_ERROR with err_op set.

struct rb_sock {
	// Configuration. fd is connected and blocking, without socket
	// timeouts: a watchdog thread bounds each blocking call (see
	// rb_sock_watch), so that no call arms a kernel timer.
	int fd;
	int busy; // MSG_DONTWAIT calls spun on, instead of blocking calls
	uint32_t size;
	int64_t idle_timeout_ns;
	uint8_t *buf;   // the message: sent, echoed, or received into
	uint8_t *reply; // ping: where the echo lands

	// Sample buffer: the time before each ping iteration's send, plus one
	// after the last (ts holds cap + 1).
	int64_t *ts;
	uint64_t cap;
	uint64_t len;

	// Run-time state, kept across calls.
	volatile int stop;
	int64_t yield_ns; // ping and stream send return RB_FULL once past it (0: never)
	uint64_t done;    // messages: ping-pong iterations, echoes, stream sends
	uint64_t bytes;   // stream receive: bytes received
	int64_t first_ns; // stream receive: first and last arrival (0: none)
	int64_t last_ns;
	uint32_t partial; // bytes of an unfinished message when the stream ended
	uint64_t win_base;    // done when the window was armed
	struct rb_window win; // the timed part's CPU window (see cpu.h)

	// Watchdog state: progress counts the calls that moved data (and the
	// calls begun), in_call is set while a call runs, and timed_out is set
	// by the watchdog before it shuts the socket down.
	volatile uint64_t progress;
	volatile int in_call;
	volatile int timed_out;

	// Failure details.
	int err_op;
	int err_errno;
};

void rb_sock_stop(struct rb_sock *s);
// rb_sock_arm_window arms the CPU window: it starts when at more messages
// are done (ping iterations or stream sends).
void rb_sock_arm_window(struct rb_sock *s, uint64_t at);

// rb_sock_watch reads the watchdog's view: the progress count, and
// whether a call is running (*in_call). rb_sock_time_out marks the running
// call as timed out: the caller then shuts the socket down to wake it, and
// it returns RB_IDLE.
uint64_t rb_sock_watch(struct rb_sock *s, int *in_call);
void rb_sock_time_out(struct rb_sock *s);

// rb_sock_ping runs up to n iterations (send size bytes, receive the size
// byte echo) or until deadline_ns, when non-zero. With record it writes
// one timestamp per iteration, taken before its send, into ts, plus a
// final one at ts[len] after the last echo (also when it fails: ts[len] then
// ends the last complete iteration), and returns RB_FULL when the
// buffer is full. Without record too, it returns RB_FULL once the clock
// passes yield_ns and at least one iteration was done, so that the caller
// can report live figures without ever stalling the run.
// rb_sock_pong echoes n messages (RB_FOREVER: until the end of the
// stream).
int rb_sock_ping(struct rb_sock *s, uint64_t n, int64_t deadline_ns, int record);
int rb_sock_pong(struct rb_sock *s, uint64_t n);

// rb_sock_send_stream sends n messages (RB_FOREVER: until deadline_ns),
// returning RB_FULL once past yield_ns. rb_sock_recv_stream receives, size
// bytes per call at most, until bytes reaches limit (RB_OK) or the stream
// ends (RB_EOF), noting the first and last arrival times.
int rb_sock_send_stream(struct rb_sock *s, uint64_t n, int64_t deadline_ns);
int rb_sock_recv_stream(struct rb_sock *s, uint64_t limit);

// One-off transfers of a caller's buffer (acknowledgements, tests), with
// the same retries and bounds. rb_sock_recv_some returns after at least
// one byte, written to *got.
int rb_sock_send_all(struct rb_sock *s, const uint8_t *p, size_t len);
int rb_sock_recv_full(struct rb_sock *s, uint8_t *p, size_t len);
int rb_sock_recv_some(struct rb_sock *s, uint8_t *p, size_t len, size_t *got);

#endif
