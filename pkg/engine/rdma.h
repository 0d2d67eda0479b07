// The measured RDMA data path: post, poll, wait for the peer's byte and
// take timestamps, all in C, one call per run or per batch of samples.
#ifndef RDMA_BENCH_RDMA_H
#define RDMA_BENCH_RDMA_H

#include <stdint.h>
#include <infiniband/verbs.h>
#include "clock.h"
#include "cpu.h"
#include "status.h"

enum rb_verb {
	RB_WRITE = 0,
	RB_WRITE_IMM = 1,
	RB_READ = 2,
	RB_SEND = 3,
	RB_FADD = 4,
	RB_CSWAP = 5,
};

struct rb_eqp {
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx; // set: post through the extended API (ibv_wr_*)
	uint64_t laddr;     // local source/sink of this QP's operations
	uint32_t lkey;
	uint64_t raddr;     // peer memory (RDMA and atomics)
	uint32_t rkey;
	uint64_t recv_addr; // where receives land
	uint32_t recv_len;
	uint32_t recv_lkey;
	struct ibv_ah *ah;  // UD
	uint32_t remote_qpn;
	// Run-time state, kept across calls.
	uint64_t posted;    // send WRs posted
	uint64_t completed; // send WRs known complete
	uint64_t signalled; // index of the last signalled send WR
	uint64_t end;       // a stream stops posting here (see rb_stream)
	uint64_t recv_outstanding;
	uint64_t recv_posted; // receives ever posted: their slots
	struct ibv_send_wr *wrs; // post_list WRs, linked
	struct ibv_sge *sges;
};

struct rb_engine {
	// Configuration.
	int verb;
	int events;
	uint32_t size;
	uint32_t tx_depth;
	uint32_t rx_depth;
	uint32_t cq_mod;
	uint32_t post_list;
	uint32_t inline_size; // post inline when size <= inline_size
	uint64_t compare_add, swap;
	int64_t idle_timeout_ns;
	// Ping-pong slots: an open loop keeps up to slots operations in
	// flight, each in its own slot, stride bytes apart in every region;
	// 1 for a closed loop.
	uint32_t slots;
	uint32_t stride;
	// A schedule (rb_ping_open, or a rate-limited rb_stream): operation i
	// is due at t0 + i * 10^9 / rate ns. rate 0: none.
	uint64_t rate;
	struct ibv_cq *cq;
	struct ibv_srq *srq; // when set, the receive queue of every QP
	struct ibv_comp_channel *channel;
	// wake_fd (event mode; else -1) is an eventfd that rb_engine_stop and
	// rb_engine_stop_recv write, so that a loop waiting for a completion
	// event sees the request at once, not after EVENT_WAIT_MS.
	int wake_fd;
	int nqps;
	struct rb_eqp *qps;

	// Sample buffer: latency post times, or bandwidth (time, ops) pairs.
	int64_t *ts;
	uint64_t *counts;
	uint64_t cap;
	uint64_t len;

	// Run-time state, kept across calls.
	volatile int stop;      // abort: return RB_STOPPED at once
	volatile int recv_stop; // the peer sent its last message
	uint64_t seq;         // ping-pong iterations done
	uint64_t recvd;       // receive completions
	uint64_t unacked;     // completion events not yet acknowledged
	uint64_t rr;          // round-robin cursor over QPs
	int64_t yield_ns;     // when non-zero, calls return RB_FULL at this time
	int64_t first_post_ns;
	int64_t last_comp_ns;
	uint64_t ops_base;    // completed send WRs when the timed part began
	uint64_t live_ops;    // completed since ops_base, for other threads
	uint64_t win_base;    // ping: seq when the window was armed
	struct rb_window win; // the timed part's CPU window
	// Open loop: the schedule's origin, operations posted and completed
	// since it, and where they started counting (seq, receives and send
	// completions before it); post times by slot of the operations in
	// flight.
	int64_t t0;
	uint64_t ol_posted, ol_done, ol_seq0, ol_recvd0, ol_completed0;
	int64_t *ol_post;

	// Failure details.
	uint32_t wc_status, wc_opcode, wc_vendor_err;
	uint64_t wc_wr_id;
	const char *err_verb;
	int err_errno;
};

int rb_engine_prepare(struct rb_engine *e);
void rb_engine_free(struct rb_engine *e);
int rb_engine_wake_open(struct rb_engine *e);
void rb_engine_stop(struct rb_engine *e);
void rb_engine_stop_recv(struct rb_engine *e);
// rb_engine_reset_live starts counting live_ops from now (after a
// warm-up); rb_engine_live_ops may be read from any thread.
void rb_engine_reset_live(struct rb_engine *e);
uint64_t rb_engine_live_ops(struct rb_engine *e);
// rb_engine_arm_window arms the CPU window: for rb_ping it starts when at
// more iterations are done; for rb_stream at the next call's first post.
void rb_engine_arm_window(struct rb_engine *e, uint64_t at);

// RB_FOREVER (status.h) as a receive count means until
// rb_engine_stop_recv.
int rb_engine_post_recvs(struct rb_engine *e);

// Latency. rb_ping runs up to n iterations (or until deadline_ns, when
// non-zero) and writes one post timestamp per iteration into ts plus a
// final arrival timestamp at ts[len]. With record=0 nothing is stored
// (warm-up). A call that is due to yield (yield_ns) returns RB_FULL only
// after at least one iteration, so live figures never stall a run.
// rb_pong answers n pings.
int rb_ping(struct rb_engine *e, uint64_t n, int64_t deadline_ns, int record);
int rb_pong(struct rb_engine *e, uint64_t n);

// Open-loop latency. rb_engine_start_open sets the schedule's origin to
// now; rb_ping_open then issues up to n operations (or until deadline_ns)
// at t0 + i * 10^9 / rate, keeping up to slots in flight, and records per
// completed operation a pair (post time, completion time) into ts. It
// returns RB_FULL when the buffer is full or a tick is due after progress.
void rb_engine_start_open(struct rb_engine *e);
int rb_ping_open(struct rb_engine *e, uint64_t n, int64_t deadline_ns, int record);

// Bandwidth. rb_stream posts n_send operations per QP (RB_FOREVER: until
// deadline_ns) and receives n_recv messages per QP (RB_FOREVER: until the
// send side is done, or, for a receive-only call, until
// rb_engine_stop_recv), recording (time, completed operations) at every
// signalled completion. At the deadline, a QP whose last posted operation
// was unsignalled posts one more, signalled, so that every operation
// posted is seen to complete and counted.
int rb_stream(struct rb_engine *e, uint64_t n_send, uint64_t n_recv, int64_t deadline_ns, int record);

// rb_poll_cq is ibv_poll_cq. In a binary built with the rdmabench_slowdown
// tag (slowdown.go) it can also lose one completion, as a faulty provider
// does: the rb_drop_after-th completion polled is discarded (0: none), so
// that the lost-completion path is tested on a device that loses none.
#ifdef RB_SLOWDOWN
extern int64_t rb_drop_after;
static inline int rb_poll_cq(struct ibv_cq *cq, int max, struct ibv_wc *wc)
{
	int n = ibv_poll_cq(cq, max, wc);
	if (n <= 0 || rb_drop_after <= 0)
		return n;
	if (rb_drop_after > n) {
		rb_drop_after -= n;
		return n;
	}
	int i = (int)rb_drop_after - 1;
	for (; i + 1 < n; i++)
		wc[i] = wc[i + 1];
	rb_drop_after = 0;
	return n - 1;
}
#else
#define rb_poll_cq ibv_poll_cq
#endif

#endif
