// The bandwidth loop: streams of operations on every QP, with the
// receives that go with them.
#include "loop.h"

// send_drained reports whether every QP's posted WRs have been seen to
// complete: a stream's last WR on each QP is signalled (see close_qps).
static int send_drained(struct rb_engine *e)
{
	for (int i = 0; i < e->nqps; i++)
		if (e->qps[i].completed < e->qps[i].posted)
			return 0;
	return 1;
}

// close_qps ends every QP's stream at the deadline: one more WR, signalled,
// where the last one posted was not, so that its completion confirms every
// WR before it.
static void close_qps(struct rb_engine *e)
{
	for (int i = 0; i < e->nqps; i++) {
		struct rb_eqp *q = &e->qps[i];
		q->end = q->posted == q->signalled ? q->posted : q->posted + 1;
	}
}

int rb_stream(struct rb_engine *e, uint64_t n_send, uint64_t n_recv, int64_t deadline_ns, int record)
{
	struct ibv_wc wc[POLL_BATCH];
	struct rb_wait st = { 0 };
	int closing = 0; // past the deadline: post only what closes each QP
	int moved = 0;   // this call made progress: it may yield for a tick
	int last_n = -1; // completions of the last poll: 0 means the CQ was empty
	uint32_t list = e->post_list ? e->post_list : 1;
	int r;
	for (;;) {
		int progress = 0;
		if (rbe_stopped(e))
			return rbe_finish(e, RB_STOPPED);
		if (n_send && !closing && (deadline_ns || e->yield_ns)) {
			int64_t t = rb_now_ns();
			if (deadline_ns && t >= deadline_ns) {
				closing = 1;
				close_qps(e);
			} else if (moved && e->yield_ns && t >= e->yield_ns) {
				return RB_FULL;
			}
		}
		int sending = 0;
		for (int i = 0; i < e->nqps; i++)
			if (e->qps[i].posted < (closing ? e->qps[i].end : n_send))
				sending = 1;
		int send_done = !n_send || (!sending && send_drained(e));
		int recv_done = !n_recv || (n_recv == RB_FOREVER ? n_send != 0 || (rbe_recv_stopped(e) && last_n == 0) : e->recvd >= n_recv * (uint64_t)e->nqps);
		if (send_done && recv_done)
			return rbe_finish(e, closing ? RB_DEADLINE : RB_OK);
		for (int k = 0; sending && k < e->nqps; k++) {
			int qi = (int)(e->rr++ % (uint64_t)e->nqps);
			struct rb_eqp *q = &e->qps[qi];
			uint64_t limit = closing ? q->end : n_send;
			uint64_t out = q->posted - q->completed;
			if (q->posted >= limit || out >= e->tx_depth)
				continue;
			uint64_t c = e->tx_depth - out;
			if (c > list)
				c = list;
			if (c > limit - q->posted)
				c = limit - q->posted;
			int64_t t = 0;
			if (!e->first_post_ns) {
				rb_window_at(&e->win, 0); // the timed part begins
				t = rb_now_ns();
				e->t0 = t;
				e->ol_posted = 0;
			}
			if (e->rate) {
				// A rate limit: no operation before it is due.
				int64_t now = t ? t : rb_now_ns();
				uint64_t due = (uint64_t)((__int128)(now - e->t0) * e->rate / 1000000000) + 1;
				if (due <= e->ol_posted) {
					// Waiting for the schedule with nothing in flight
					// is not waiting for the peer.
					progress |= q->posted == q->completed;
					continue;
				}
				if (c > due - e->ol_posted)
					c = due - e->ol_posted;
			}
			rb_slowdown(1);
			if ((r = rbe_post(e, qi, (uint32_t)c, limit, 0)))
				return rbe_finish(e, r);
			e->ol_posted += c;
			if (!e->first_post_ns)
				e->first_post_ns = t;
			progress = 1;
		}
		// While it can still post, an event-mode sender does not sleep.
		int n, sends = 0, recvs = 0;
		if (progress && e->events)
			n = rb_poll_cq(e->cq, POLL_BATCH, wc);
		else if ((r = rbe_poll_cq(e, wc, &n)))
			return rbe_finish(e, r);
		if (n < 0)
			return rbe_finish(e, rbe_verb_error(e, "ibv_poll_cq", EIO));
		if ((r = rbe_handle(e, wc, n, n_recv, &sends, &recvs)))
			return rbe_finish(e, r);
		if (n > 0) {
			int64_t t = rb_now_ns();
			e->last_comp_ns = t;
			if (sends) {
				uint64_t ops = rbe_completed_ops(e);
				__atomic_store_n(&e->live_ops, ops - e->ops_base, __ATOMIC_RELAXED);
				if (record) {
					e->ts[e->len] = t;
					e->counts[e->len] = ops;
					if (++e->len == e->cap)
						return RB_FULL;
				}
			}
			progress = 1;
		}
		last_n = n;
		moved |= progress;
		if ((r = rbe_idle_check(e, &st, progress)))
			return rbe_finish(e, r);
	}
}
