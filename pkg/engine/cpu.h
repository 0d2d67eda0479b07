// CPU readings taken in C at the bounds of a timed part, so that CPU time
// per operation covers exactly the operations timed: not the warm-up run in
// the same call, nor the exchange with the peer afterwards.
#ifndef RDMA_BENCH_CPU_H
#define RDMA_BENCH_CPU_H

#include <stdint.h>

#define RB_STAT_LINE 512

// rb_cpu is one reading: the measuring clock, the process's CPU time (all
// threads) and the first line of /proc/stat (the machine's CPU time).
struct rb_cpu {
	int64_t wall_ns;
	int64_t user_ns, sys_ns;
	char stat[RB_STAT_LINE]; // NUL-terminated; empty if unreadable
	int taken;
};

void rb_cpu_take(struct rb_cpu *c);

// rb_window is a timed part's CPU window: armed by the caller with the
// loop's progress count at which the timed part begins; the loop takes
// start there (before the first timed timestamp) and end when it returns
// for good (any status but RB_FULL).
struct rb_window {
	int armed;
	uint64_t at;
	struct rb_cpu start, end;
};

static inline void rb_window_at(struct rb_window *w, uint64_t count)
{
	if (w->armed && !w->start.taken && count >= w->at)
		rb_cpu_take(&w->start);
}

static inline int rb_window_end(struct rb_window *w, int status)
{
	if (w->armed && w->start.taken && status != 1 /* RB_FULL */)
		rb_cpu_take(&w->end);
	return status;
}

#endif
