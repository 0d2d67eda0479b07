// The measured data path. Everything per operation happens here: building
// and posting work requests, polling or waiting for completions, spinning
// on the byte a peer writes, and taking timestamps into a buffer allocated
// before the run. Go calls in once per run or per batch of samples.
//
// Clock: rb_now_ns (clock.h), CLOCK_MONOTONIC_RAW through the vDSO, or a
// TSC calibrated against it where the vDSO cannot answer.
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/eventfd.h>
#include "loop.h"

#define ACK_BATCH 64
#define EVENT_WAIT_MS 50

static int is_send_verb(int verb)
{
	return verb == RB_WRITE || verb == RB_WRITE_IMM || verb == RB_SEND;
}

static int wr_opcode(int verb)
{
	switch (verb) {
	case RB_WRITE:
		return IBV_WR_RDMA_WRITE;
	case RB_WRITE_IMM:
		return IBV_WR_RDMA_WRITE_WITH_IMM;
	case RB_READ:
		return IBV_WR_RDMA_READ;
	case RB_SEND:
		return IBV_WR_SEND;
	case RB_FADD:
		return IBV_WR_ATOMIC_FETCH_AND_ADD;
	default:
		return IBV_WR_ATOMIC_CMP_AND_SWP;
	}
}

int rb_engine_prepare(struct rb_engine *e)
{
	uint32_t n = e->post_list ? e->post_list : 1;
	for (int i = 0; i < e->nqps; i++) {
		struct rb_eqp *q = &e->qps[i];
		q->wrs = calloc(n, sizeof(*q->wrs));
		q->sges = calloc(n, sizeof(*q->sges));
		if (!q->wrs || !q->sges)
			return ENOMEM;
		for (uint32_t k = 0; k < n; k++) {
			struct ibv_send_wr *w = &q->wrs[k];
			q->sges[k].addr = q->laddr;
			q->sges[k].length = e->size;
			q->sges[k].lkey = q->lkey;
			w->sg_list = &q->sges[k];
			w->num_sge = 1;
			w->opcode = wr_opcode(e->verb);
			switch (e->verb) {
			case RB_FADD:
			case RB_CSWAP:
				w->wr.atomic.remote_addr = q->raddr;
				w->wr.atomic.rkey = q->rkey;
				w->wr.atomic.compare_add = e->compare_add;
				w->wr.atomic.swap = e->swap;
				break;
			case RB_SEND:
				if (q->ah) {
					w->wr.ud.ah = q->ah;
					w->wr.ud.remote_qpn = q->remote_qpn;
					w->wr.ud.remote_qkey = 0x11111111;
				}
				break;
			default:
				w->wr.rdma.remote_addr = q->raddr;
				w->wr.rdma.rkey = q->rkey;
			}
		}
	}
	return 0;
}

void rb_engine_free(struct rb_engine *e)
{
	for (int i = 0; i < e->nqps; i++) {
		free(e->qps[i].wrs);
		free(e->qps[i].sges);
		e->qps[i].wrs = NULL;
		e->qps[i].sges = NULL;
	}
	if (e->unacked && e->cq) {
		ibv_ack_cq_events(e->cq, (unsigned int)e->unacked);
		e->unacked = 0;
	}
	if (e->wake_fd >= 0) {
		close(e->wake_fd);
		e->wake_fd = -1;
	}
}

// rb_engine_wake_open makes the event-mode engine's wake_fd; 0 or errno.
int rb_engine_wake_open(struct rb_engine *e)
{
	e->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return e->wake_fd < 0 ? errno : 0;
}

// wake ends a wait_event in progress, or the next one (after a flag was
// stored, so that the woken loop sees it).
static void wake(struct rb_engine *e)
{
	uint64_t one = 1;
	if (e->wake_fd >= 0 && write(e->wake_fd, &one, sizeof(one)) < 0) {
		// EAGAIN: the counter is full, a wake is pending anyway.
	}
}

void rb_engine_stop(struct rb_engine *e)
{
	__atomic_store_n(&e->stop, 1, __ATOMIC_RELEASE);
	wake(e);
}

int rbe_stopped(struct rb_engine *e)
{
	return __atomic_load_n(&e->stop, __ATOMIC_ACQUIRE);
}

uint64_t rbe_completed_ops(struct rb_engine *e)
{
	uint64_t ops = 0;
	for (int i = 0; i < e->nqps; i++)
		ops += e->qps[i].completed;
	return ops;
}

void rb_engine_reset_live(struct rb_engine *e)
{
	e->ops_base = rbe_completed_ops(e);
	__atomic_store_n(&e->live_ops, 0, __ATOMIC_RELAXED);
}

uint64_t rb_engine_live_ops(struct rb_engine *e)
{
	return __atomic_load_n(&e->live_ops, __ATOMIC_RELAXED);
}

void rb_engine_arm_window(struct rb_engine *e, uint64_t at)
{
	memset(&e->win, 0, sizeof(e->win));
	e->win.armed = 1;
	e->win.at = at;
	e->win_base = e->seq;
}

void rb_engine_stop_recv(struct rb_engine *e)
{
	__atomic_store_n(&e->recv_stop, 1, __ATOMIC_RELEASE);
	wake(e);
}

int rbe_recv_stopped(struct rb_engine *e)
{
	return __atomic_load_n(&e->recv_stop, __ATOMIC_ACQUIRE);
}

int rbe_verb_error(struct rb_engine *e, const char *verb, int err)
{
	e->err_verb = verb;
	e->err_errno = err;
	return RB_VERB_ERROR;
}

int rbe_post_recv(struct rb_engine *e, int qi)
{
	struct rb_eqp *q = &e->qps[qi];
	struct ibv_sge sge = { .addr = q->recv_addr + rbe_slot(e, q->recv_posted + 1), .length = q->recv_len,
			       .lkey = q->recv_lkey };
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)qi << QP_SHIFT, .sg_list = &sge, .num_sge = 1 }, *bad;
	// With a shared receive queue, qi names the region the receive lands
	// in (and whose count it keeps), not the QP that consumes it.
	int r = e->srq ? ibv_post_srq_recv(e->srq, &wr, &bad) : ibv_post_recv(q->qp, &wr, &bad);
	if (r)
		return rbe_verb_error(e, e->srq ? "ibv_post_srq_recv" : "ibv_post_recv", r);
	q->recv_outstanding++;
	q->recv_posted++;
	return RB_OK;
}

// rb_engine_post_recvs fills every QP's receive queue to rx_depth, or the
// shared receive queue to rx_depth, into the QPs' regions in turn.
int rb_engine_post_recvs(struct rb_engine *e)
{
	if (e->srq) {
		uint64_t total = 0;
		for (int i = 0; i < e->nqps; i++)
			total += e->qps[i].recv_outstanding;
		for (int i = 0; total < e->rx_depth; i = (i + 1) % e->nqps, total++) {
			int r = rbe_post_recv(e, i);
			if (r)
				return r;
		}
		return RB_OK;
	}
	for (int i = 0; i < e->nqps; i++)
		while (e->qps[i].recv_outstanding < e->rx_depth) {
			int r = rbe_post_recv(e, i);
			if (r)
				return r;
		}
	return RB_OK;
}

// post_ex posts the count WRs that rbe_post prepared in q->wrs through the
// extended API: one ibv_wr_start .. ibv_wr_complete batch, the doorbell
// rung once, as ibv_post_send does for a list.
static int post_ex(struct rb_engine *e, struct rb_eqp *q, uint32_t count, int inl)
{
	struct ibv_qp_ex *x = q->qpx;
	ibv_wr_start(x);
	for (uint32_t k = 0; k < count; k++) {
		struct ibv_send_wr *w = &q->wrs[k];
		struct ibv_sge *s = &q->sges[k];
		x->wr_id = w->wr_id;
		// IBV_SEND_INLINE stays: rxe's kernel side reads it from the WQE,
		// as perftest leaves it.
		x->wr_flags = w->send_flags;
		switch (e->verb) {
		case RB_WRITE:
			ibv_wr_rdma_write(x, w->wr.rdma.rkey, w->wr.rdma.remote_addr);
			break;
		case RB_WRITE_IMM:
			ibv_wr_rdma_write_imm(x, w->wr.rdma.rkey, w->wr.rdma.remote_addr, w->imm_data);
			break;
		case RB_READ:
			ibv_wr_rdma_read(x, w->wr.rdma.rkey, w->wr.rdma.remote_addr);
			break;
		case RB_SEND:
			ibv_wr_send(x);
			if (q->ah)
				ibv_wr_set_ud_addr(x, q->ah, q->remote_qpn, 0x11111111);
			break;
		case RB_FADD:
			ibv_wr_atomic_fetch_add(x, w->wr.atomic.rkey, w->wr.atomic.remote_addr, w->wr.atomic.compare_add);
			break;
		default:
			ibv_wr_atomic_cmp_swp(x, w->wr.atomic.rkey, w->wr.atomic.remote_addr, w->wr.atomic.compare_add,
					      w->wr.atomic.swap);
		}
		if (inl)
			ibv_wr_set_inline_data(x, (void *)(uintptr_t)s->addr, s->length);
		else
			ibv_wr_set_sge(x, s->lkey, s->addr, s->length);
	}
	int r = ibv_wr_complete(x);
	if (r)
		return rbe_verb_error(e, "ibv_wr_complete", r);
	q->posted += count;
	return RB_OK;
}

// post posts count WRs on QP qi as one list; total is the number of WRs the
// run will post on that QP (UINT64_MAX when open-ended), so the last one is
// always signalled.
int rbe_post(struct rb_engine *e, int qi, uint32_t count, uint64_t total, uint32_t imm)
{
	struct rb_eqp *q = &e->qps[qi];
	struct ibv_send_wr *bad;
	int inl = is_send_verb(e->verb) && e->size <= e->inline_size;
	for (uint32_t k = 0; k < count; k++) {
		struct ibv_send_wr *w = &q->wrs[k];
		uint64_t idx = q->posted + k + 1;
		w->wr_id = ((uint64_t)qi << QP_SHIFT) | idx;
		if (e->slots > 1) {
			uint64_t off = rbe_slot(e, idx);
			q->sges[k].addr = q->laddr + off;
			if (e->verb == RB_FADD || e->verb == RB_CSWAP)
				w->wr.atomic.remote_addr = q->raddr + off;
			else if (!q->ah)
				w->wr.rdma.remote_addr = q->raddr + off;
		}
		w->send_flags = inl ? IBV_SEND_INLINE : 0;
		if (idx % e->cq_mod == 0 || idx == total) {
			w->send_flags |= IBV_SEND_SIGNALED;
			q->signalled = idx;
		}
		w->imm_data = htonl(imm);
		w->next = k + 1 < count ? &q->wrs[k + 1] : NULL;
	}
	if (q->qpx)
		return post_ex(e, q, count, inl);
	int r = ibv_post_send(q->qp, q->wrs, &bad);
	if (r)
		return rbe_verb_error(e, "ibv_post_send", r);
	q->posted += count;
	return RB_OK;
}

// wait_event blocks up to EVENT_WAIT_MS for a completion event, after
// arming the CQ, or until woken (rb_engine_stop, rb_engine_stop_recv: the
// wake is consumed, so that a loop that goes on, such as a sender whose
// peer stopped receiving, blocks again at its next wait). It returns
// RB_OK whether or not an event came: the caller polls again and checks
// its deadlines and flags.
static int wait_event(struct rb_engine *e)
{
	struct ibv_cq *cq;
	void *ctx;
	struct pollfd pfd[2] = {
		{ .fd = e->channel->fd, .events = POLLIN },
		{ .fd = e->wake_fd, .events = POLLIN }, // poll skips a negative fd
	};
	int r = poll(pfd, 2, EVENT_WAIT_MS);
	if (r < 0 && errno != EINTR)
		return rbe_verb_error(e, "poll(completion channel)", errno);
	if (r <= 0)
		return RB_OK;
	if (pfd[1].revents & POLLIN) {
		uint64_t n;
		if (read(e->wake_fd, &n, sizeof(n)) < 0) {
			// EAGAIN: another wait consumed it; nothing to do.
		}
	}
	if (!(pfd[0].revents & POLLIN))
		return RB_OK;
	if (ibv_get_cq_event(e->channel, &cq, &ctx))
		return rbe_verb_error(e, "ibv_get_cq_event", errno ? errno : EIO);
	if (++e->unacked >= ACK_BATCH) {
		ibv_ack_cq_events(e->cq, (unsigned int)e->unacked);
		e->unacked = 0;
	}
	return RB_OK;
}

// poll_cq fetches completions. In event mode, when none is ready, it arms
// the CQ, polls once more to close the race, and waits for an event.
int rbe_poll_cq(struct rb_engine *e, struct ibv_wc *wc, int *n)
{
	*n = rb_poll_cq(e->cq, POLL_BATCH, wc);
	if (*n != 0 || !e->events)
		goto out;
	int r = ibv_req_notify_cq(e->cq, 0);
	if (r)
		return rbe_verb_error(e, "ibv_req_notify_cq", r);
	*n = rb_poll_cq(e->cq, POLL_BATCH, wc);
	if (*n != 0)
		goto out;
	if ((r = wait_event(e)))
		return r;
	*n = rb_poll_cq(e->cq, POLL_BATCH, wc);
out:
	if (*n < 0)
		return rbe_verb_error(e, "ibv_poll_cq", EIO);
	return RB_OK;
}

static int wc_failed(struct rb_engine *e, struct ibv_wc *w)
{
	e->wc_status = w->status;
	e->wc_opcode = w->opcode;
	e->wc_vendor_err = w->vendor_err;
	e->wc_wr_id = w->wr_id & COUNT_MASK;
	return RB_WC_ERROR;
}

// idle tracks progress: it returns RB_IDLE when nothing happened for the
// idle timeout, RB_STOPPED when asked to stop, else RB_OK. The clock is read
// only every SPIN_CHECK calls without progress.
int rbe_idle_check(struct rb_engine *e, struct rb_wait *st, int progress)
{
	if (progress) {
		*st = (struct rb_wait){ 0 };
		return RB_OK;
	}
	if (rbe_stopped(e))
		return RB_STOPPED;
	if (++st->spins % SPIN_CHECK && !e->events)
		return RB_OK;
	return rb_waited_out(st, e->idle_timeout_ns) ? RB_IDLE : RB_OK;
}

// handle processes completions: send completions advance their QP's
// completed count; receives are counted and reposted while more are due.
// It returns through *sends and *recvs what it saw.
int rbe_handle(struct rb_engine *e, struct ibv_wc *wc, int n, uint64_t n_recv, int *sends, int *recvs)
{
	for (int i = 0; i < n; i++) {
		struct ibv_wc *w = &wc[i];
		if (w->status != IBV_WC_SUCCESS)
			return wc_failed(e, w);
		int qi = (int)(w->wr_id >> QP_SHIFT);
		if (qi >= e->nqps)
			return wc_failed(e, w);
		struct rb_eqp *q = &e->qps[qi];
		if (w->opcode & IBV_WC_RECV) {
			q->recv_outstanding--;
			e->recvd++;
			(*recvs)++;
			if (n_recv == RB_FOREVER || e->recvd + q->recv_outstanding < n_recv * (uint64_t)e->nqps) {
				int r = rbe_post_recv(e, qi);
				if (r)
					return r;
			}
		} else {
			q->completed = w->wr_id & COUNT_MASK;
			(*sends)++;
		}
	}
	return RB_OK;
}

// room waits until QP 0 may post one more WR without overflowing.
int rbe_room(struct rb_engine *e)
{
	struct rb_eqp *q = &e->qps[0];
	struct ibv_wc wc[POLL_BATCH];
	struct rb_wait st = { 0 };
	while (q->posted - q->completed >= e->tx_depth) {
		int n, s = 0, rv = 0, r;
		if ((r = rbe_poll_cq(e, wc, &n)) || (r = rbe_handle(e, wc, n, RB_FOREVER, &s, &rv)))
			return r;
		if ((r = rbe_idle_check(e, &st, n > 0)))
			return r;
	}
	return RB_OK;
}

// finish ends a call: the CPU window closes unless the call only yields.
int rbe_finish(struct rb_engine *e, int status)
{
	return rb_window_end(&e->win, status);
}

