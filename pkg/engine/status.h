// What every measured loop returns, RDMA engine (engine.h) and socket
// loops (sockloop.h) alike, and how they are told to run open-ended.
#ifndef RDMA_BENCH_STATUS_H
#define RDMA_BENCH_STATUS_H

#include <stdint.h>
#include "clock.h"

// Why a call returned.
enum rb_status {
	RB_OK = 0,         // the requested count is done
	RB_FULL = 1,       // the sample buffer is full, or yield_ns passed: call again
	RB_DEADLINE = 2,   // the deadline passed
	RB_STOPPED = 3,    // the loop was told to stop
	RB_IDLE = 4,       // no progress for the idle timeout: the peer is gone
	RB_WC_ERROR = 5,   // engine: a work completion failed: see wc_*
	RB_VERB_ERROR = 6, // engine: a verb failed: see err_verb and err_errno
	RB_EOF = 7,        // socket: the peer ended the stream
	RB_SYS_ERROR = 8,  // socket: a system call failed: see err_op and err_errno
};

// RB_FOREVER as a count means open-ended: until the deadline (sending) or
// until the peer is done (receiving).
#define RB_FOREVER UINT64_MAX

// rb_wait is one wait for the peer: the empty polls or calls spun so far,
// and when the wait began (0: not yet measured). A loop zeroes it on
// progress.
struct rb_wait {
	uint64_t spins;
	int64_t since;
};

// rb_waited_out reads the clock and reports whether the wait has outlasted
// timeout_ns (never when it is 0); its first call starts the wait.
static inline int rb_waited_out(struct rb_wait *w, int64_t timeout_ns)
{
	int64_t now = rb_now_ns();
	if (!w->since) {
		w->since = now;
		return 0;
	}
	return timeout_ns > 0 && now - w->since > timeout_ns;
}

#endif
