// What the RDMA engine's loops (rdma.c, pingpong.c, stream.c) share: the
// work-request and completion primitives they are built from. Internal to
// pkg/engine.
#ifndef RDMA_BENCH_LOOP_H
#define RDMA_BENCH_LOOP_H

#include <errno.h>
#include "rdma.h"

#define QP_SHIFT 48
#define COUNT_MASK ((1ULL << QP_SHIFT) - 1)
#define POLL_BATCH 32
#define SPIN_CHECK 4096

int rbe_stopped(struct rb_engine *e);
int rbe_recv_stopped(struct rb_engine *e);
uint64_t rbe_completed_ops(struct rb_engine *e);
int rbe_verb_error(struct rb_engine *e, const char *verb, int err);

// rb_post posts count WRs on QP qi as one list; total is the number of WRs
// the run will post on that QP (UINT64_MAX when open-ended), so the last
// one is always signalled. Ping-pong WRs use the slot of their index.
int rbe_post(struct rb_engine *e, int qi, uint32_t count, uint64_t total, uint32_t imm);
int rbe_post_recv(struct rb_engine *e, int qi);
// rb_poll_cq fetches completions, waiting for an event in event mode.
int rbe_poll_cq(struct rb_engine *e, struct ibv_wc *wc, int *n);
// rb_handle processes completions: sends advance their QP's completed
// count, receives are counted and reposted while more are due.
int rbe_handle(struct rb_engine *e, struct ibv_wc *wc, int n, uint64_t n_recv, int *sends, int *recvs);
// rb_idle_check returns RB_IDLE after the idle timeout without progress,
// RB_STOPPED when asked to stop, else RB_OK.
int rbe_idle_check(struct rb_engine *e, struct rb_wait *st, int progress);
// rb_room waits until QP 0 may post one more WR.
int rbe_room(struct rb_engine *e);
// rb_finish ends a call: the CPU window closes unless the call only yields.
int rbe_finish(struct rb_engine *e, int status);

// rb_slot is the offset of ping-pong slot of the 1-based operation index
// idx: an open loop keeps window operations in flight, each in its own
// slot of the local, remote and receive regions.
static inline uint64_t rbe_slot(const struct rb_engine *e, uint64_t idx)
{
	return e->slots > 1 ? ((idx - 1) % e->slots) * e->stride : 0;
}

// rb_flag is the byte a WRITE ping-pong's peer writes last into slot idx
// of the receive region: idx's low byte says it arrived.
static inline volatile uint8_t *rbe_flag(const struct rb_engine *e, uint64_t idx)
{
	return (volatile uint8_t *)(e->qps[0].recv_addr + rbe_slot(e, idx) + e->size - 1);
}

#endif
