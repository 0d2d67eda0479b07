// The latency loops: the closed-loop ping-pong (or round trip) and its
// answering side, and the open loop that issues operations on a schedule.
#include "loop.h"

// await_pong waits until ping-pong iteration seq has come back: the peer's
// byte for WRITE, a receive for SEND and WRITE_IMM, our own completion for
// READ and atomics.
static int await_pong(struct rb_engine *e, uint64_t seq)
{
	struct rb_eqp *q = &e->qps[0];
	struct ibv_wc wc[POLL_BATCH];
	struct rb_wait st = { 0 };
	volatile uint8_t *flag = rbe_flag(e, seq);
	uint8_t want = (uint8_t)seq;
	for (;;) {
		int n = 0, s = 0, rv = 0, r;
		if (e->verb == RB_WRITE) {
			// Spin on the byte; touch the CQ only to reap a signalled
			// send completion, so the send queue never overflows.
			if (*flag == want)
				return RB_OK;
			if (q->posted - q->completed >= e->cq_mod) {
				n = rb_poll_cq(e->cq, POLL_BATCH, wc);
				if (n < 0)
					return rbe_verb_error(e, "ibv_poll_cq", EIO);
			}
		} else if ((r = rbe_poll_cq(e, wc, &n))) {
			return r;
		}
		if ((r = rbe_handle(e, wc, n, RB_FOREVER, &s, &rv)))
			return r;
		if (e->verb != RB_WRITE) {
			int is_recv = e->verb == RB_SEND || e->verb == RB_WRITE_IMM;
			// Every iteration brings one receive: iteration seq is
			// back once seq have come, however many one poll took (an
			// open loop's pings arrive several at a time).
			if (is_recv ? e->recvd >= seq : q->completed >= q->posted)
				return RB_OK;
		}
		if ((r = rbe_idle_check(e, &st, n > 0)))
			return r;
	}
}

static void set_flag_byte(struct rb_engine *e, uint64_t seq)
{
	if (e->verb == RB_WRITE)
		((volatile uint8_t *)(e->qps[0].laddr + rbe_slot(e, seq)))[e->size - 1] = (uint8_t)seq;
}

int rb_ping(struct rb_engine *e, uint64_t n, int64_t deadline_ns, int record)
{
	uint64_t done = 0;
	int r;
	for (;;) {
		// The CPU window opens before the first timed timestamp, so
		// that taking it is in no sample.
		rb_window_at(&e->win, e->seq - e->win_base);
		int64_t t = rb_now_ns();
		if (record)
			e->ts[e->len] = t;
		if (done == n)
			return rbe_finish(e, RB_OK);
		if (deadline_ns && t >= deadline_ns)
			return rbe_finish(e, RB_DEADLINE);
		if (rbe_stopped(e))
			return rbe_finish(e, RB_STOPPED);
		// Yield for a tick only after some progress: a caller slower than
		// the tick period still moves the run forward.
		if ((record && e->len == e->cap) || (done && e->yield_ns && t >= e->yield_ns))
			return RB_FULL;
		if ((r = rbe_room(e)))
			return rbe_finish(e, r);
		uint64_t seq = e->seq + 1;
		set_flag_byte(e, seq);
		rb_slowdown(0);
		if ((r = rbe_post(e, 0, 1, UINT64_MAX, (uint32_t)seq)))
			return rbe_finish(e, r);
		if (!e->first_post_ns)
			e->first_post_ns = t;
		if ((r = await_pong(e, seq)))
			return rbe_finish(e, r);
		e->seq = seq;
		done++;
		if (record)
			e->len++;
	}
}

int rb_pong(struct rb_engine *e, uint64_t n)
{
	int r;
	for (uint64_t done = 0; done < n; done++) {
		uint64_t seq = e->seq + 1;
		if ((r = await_pong(e, seq)))
			return r;
		if ((r = rbe_room(e)))
			return r;
		set_flag_byte(e, seq);
		rb_slowdown(0);
		if ((r = rbe_post(e, 0, 1, UINT64_MAX, (uint32_t)seq)))
			return r;
		e->seq = seq;
	}
	return RB_OK;
}


void rb_engine_start_open(struct rb_engine *e)
{
	e->t0 = rb_now_ns();
	e->ol_posted = e->ol_done = 0;
	e->ol_seq0 = e->seq;
	e->ol_recvd0 = e->recvd;
	e->ol_completed0 = e->qps[0].completed;
	e->len = 0;
}

// due is when open-loop operation i is due.
static int64_t due(const struct rb_engine *e, uint64_t i)
{
	return e->t0 + (int64_t)((__int128)i * 1000000000 / e->rate);
}

// arrived counts the open-loop operations come back so far, in order: for
// WRITE the slots' flags, for SEND and immediates the receives, for READ
// and atomics their completions. Polling the CQ keeps the send queue's
// completions reaped. *moved says the call saw progress.
static int arrived(struct rb_engine *e, uint64_t *done, int *moved)
{
	struct rb_eqp *q = &e->qps[0];
	struct ibv_wc wc[POLL_BATCH];
	int n = 0, s = 0, rv = 0, r;
	uint64_t d = e->ol_done;
	if (e->verb == RB_WRITE) {
		while (d < e->ol_posted && *rbe_flag(e, e->ol_seq0 + d + 1) == (uint8_t)(e->ol_seq0 + d + 1))
			d++;
		if (q->posted - q->completed >= e->cq_mod)
			n = rb_poll_cq(e->cq, POLL_BATCH, wc);
	} else {
		n = rb_poll_cq(e->cq, POLL_BATCH, wc);
	}
	if (n < 0)
		return rbe_verb_error(e, "ibv_poll_cq", EIO);
	if ((r = rbe_handle(e, wc, n, RB_FOREVER, &s, &rv)))
		return r;
	switch (e->verb) {
	case RB_SEND:
	case RB_WRITE_IMM:
		d = e->recvd - e->ol_recvd0;
		break;
	case RB_READ:
	case RB_FADD:
	case RB_CSWAP:
		d = q->completed - e->ol_completed0;
		break;
	}
	*moved |= n > 0 || d > e->ol_done;
	*done = d;
	return RB_OK;
}

int rb_ping_open(struct rb_engine *e, uint64_t n, int64_t deadline_ns, int record)
{
	struct rb_wait st = { 0 };
	int moved = 0, r;
	for (;;) {
		int progress = 0;
		uint64_t done;
		if ((r = arrived(e, &done, &progress)))
			return rbe_finish(e, r);
		int64_t now = rb_now_ns();
		for (; e->ol_done < done; e->ol_done++) {
			if (record) {
				if (e->len == e->cap)
					return RB_FULL;
				e->ts[2 * e->len] = e->ol_post[e->ol_done % e->slots];
				e->ts[2 * e->len + 1] = now;
				e->len++;
			}
		}
		int past = deadline_ns && now >= deadline_ns;
		if (e->ol_done == n || (past && e->ol_done == e->ol_posted))
			return rbe_finish(e, e->ol_done == n ? RB_OK : RB_DEADLINE);
		if (rbe_stopped(e))
			return rbe_finish(e, RB_STOPPED);
		moved |= progress;
		if (moved && e->yield_ns && now >= e->yield_ns)
			return RB_FULL;
		if (!past && e->ol_posted < n && e->ol_posted - e->ol_done < e->slots && now >= due(e, e->ol_posted)) {
			if ((r = rbe_room(e)))
				return rbe_finish(e, r);
			uint64_t seq = e->seq + 1;
			set_flag_byte(e, seq);
			rb_window_at(&e->win, 0); // the timed part begins with its first post
			int64_t t = rb_now_ns();
			rb_slowdown(0);
		if ((r = rbe_post(e, 0, 1, UINT64_MAX, (uint32_t)seq)))
				return rbe_finish(e, r);
			e->ol_post[e->ol_posted % e->slots] = t;
			if (!e->first_post_ns)
				e->first_post_ns = t;
			e->seq = seq;
			e->ol_posted++;
			progress = moved = 1;
		}
		// Waiting for the schedule with nothing in flight is not waiting
		// for the peer.
		if ((r = rbe_idle_check(e, &st, progress || e->ol_posted == e->ol_done)))
			return rbe_finish(e, r);
	}
}
