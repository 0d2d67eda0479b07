#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "cm_shim.h"
#include "shim.h"

static int err_or(int fallback)
{
	return errno ? errno : fallback;
}

static socklen_t to_sockaddr(const struct rb_addr *a, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->is_v4) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;
		in->sin_family = AF_INET;
		in->sin_port = htons(a->port);
		memcpy(&in->sin_addr, a->ip, 4);
		return sizeof(*in);
	}
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons(a->port);
	in6->sin6_scope_id = a->scope_id;
	memcpy(&in6->sin6_addr, a->ip, 16);
	return sizeof(*in6);
}

// rb_cm_create_channel creates an event channel whose fd is non-blocking,
// so that rdma_get_cm_event never blocks (waits go through poll()).
struct rdma_event_channel *rb_cm_create_channel(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	int flags;
	if (!ch)
		return NULL;
	flags = fcntl(ch->fd, F_GETFL);
	if (flags < 0 || fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		int e = errno;
		rdma_destroy_event_channel(ch);
		errno = e;
		return NULL;
	}
	return ch;
}

// rb_cm_create_ep_id creates an id of any connected QP type in the
// RDMA_PS_IB port space, bound to bind, and moves it onto ch.
// rdma_create_id cannot: it infers the QP type from the port space (RC for
// RDMA_PS_TCP and RDMA_PS_IB), while the kernel puts the id's QP type in
// the connection request. A passive rdma_create_ep only creates the id and
// binds it: it does not block.
int rb_cm_create_ep_id(struct rdma_event_channel *ch, int qp_type, const struct rb_addr *bind,
		       struct rdma_cm_id **out)
{
	struct sockaddr_storage ss;
	struct rdma_addrinfo ai;
	struct rdma_cm_id *id = NULL;
	int e;

	memset(&ai, 0, sizeof(ai));
	ai.ai_flags = RAI_PASSIVE;
	ai.ai_qp_type = qp_type;
	ai.ai_port_space = RDMA_PS_IB;
	ai.ai_src_len = to_sockaddr(bind, &ss);
	ai.ai_src_addr = (struct sockaddr *)&ss;
	ai.ai_family = ss.ss_family;
	errno = 0;
	if (rdma_create_ep(&id, &ai, NULL, NULL))
		return err_or(EINVAL);
	errno = 0;
	if (rdma_migrate_id(id, ch)) {
		e = err_or(EINVAL);
		rdma_destroy_ep(id);
		return e;
	}
	*out = id;
	return 0;
}

int rb_cm_bind(struct rdma_cm_id *id, const struct rb_addr *a)
{
	struct sockaddr_storage ss;
	to_sockaddr(a, &ss);
	errno = 0;
	if (rdma_bind_addr(id, (struct sockaddr *)&ss))
		return err_or(EINVAL);
	return 0;
}

int rb_cm_resolve_addr(struct rdma_cm_id *id, const struct rb_addr *dst, int timeout_ms)
{
	struct sockaddr_storage ss;
	to_sockaddr(dst, &ss);
	errno = 0;
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&ss, timeout_ms))
		return err_or(EINVAL);
	return 0;
}

// rb_cm_get_event waits up to timeout_ms for the next event on ch, copies
// it to out and acknowledges it. It returns 0, ETIMEDOUT or an errno value.
int rb_cm_get_event(struct rdma_event_channel *ch, int timeout_ms, struct rb_cm_event *out)
{
	struct rdma_cm_event *ev;

	for (;;) {
		int r = rb_poll_in(ch->fd, timeout_ms);
		if (r)
			return r;
		errno = 0;
		if (rdma_get_cm_event(ch, &ev) == 0)
			break;
		// Another reader took the event, or librdmacm consumed an
		// internal one: poll again (the caller tracks the deadline).
		if (errno != EAGAIN && errno != EINTR)
			return err_or(EIO);
	}
	memset(out, 0, sizeof(*out));
	out->id = ev->id;
	out->listen_id = ev->listen_id;
	out->event = ev->event;
	out->status = ev->status;
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST || ev->event == RDMA_CM_EVENT_ESTABLISHED) {
		out->responder_resources = ev->param.conn.responder_resources;
		out->initiator_depth = ev->param.conn.initiator_depth;
	}
	rdma_ack_cm_event(ev);
	return 0;
}

int rb_cm_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_cq *send_cq,
		    struct ibv_cq *recv_cq, struct rb_cm_qp_caps *caps)
{
	struct ibv_qp_init_attr ia;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = send_cq;
	ia.recv_cq = recv_cq;
	ia.qp_type = id->qp_type;
	ia.cap.max_send_wr = caps->max_send_wr;
	ia.cap.max_recv_wr = caps->max_recv_wr;
	ia.cap.max_send_sge = caps->max_sge;
	ia.cap.max_recv_sge = caps->max_sge;
	ia.cap.max_inline_data = caps->max_inline;
	ia.sq_sig_all = caps->sig_all;
	if (caps->srq) {
		ia.srq = caps->srq;
		ia.cap.max_recv_wr = 0;
	}
	errno = 0;
	if (rdma_create_qp(id, pd, &ia))
		return err_or(EINVAL);
	caps->max_send_wr = ia.cap.max_send_wr;
	caps->max_recv_wr = ia.cap.max_recv_wr;
	caps->max_inline = ia.cap.max_inline_data;
	return 0;
}

// rb_cm_connect calls rdma_connect (accept == 0) or rdma_accept.
int rb_cm_connect(struct rdma_cm_id *id, int accept, uint8_t responder_resources,
		  uint8_t initiator_depth, uint8_t retry_count, uint8_t rnr_retry_count)
{
	struct rdma_conn_param p;
	int r;
	memset(&p, 0, sizeof(p));
	p.responder_resources = responder_resources;
	p.initiator_depth = initiator_depth;
	p.retry_count = retry_count;
	p.rnr_retry_count = rnr_retry_count;
	errno = 0;
	r = accept ? rdma_accept(id, &p) : rdma_connect(id, &p);
	return r ? err_or(EINVAL) : 0;
}

void rb_cm_addr(struct rdma_cm_id *id, int peer, struct rb_addr *out)
{
	struct sockaddr *sa = peer ? rdma_get_peer_addr(id) : rdma_get_local_addr(id);
	memset(out, 0, sizeof(*out));
	if (sa->sa_family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)sa;
		out->is_v4 = 1;
		memcpy(out->ip, &in->sin_addr, 4);
		out->port = ntohs(in->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
		memcpy(out->ip, &in6->sin6_addr, 16);
		out->port = ntohs(in6->sin6_port);
		out->scope_id = in6->sin6_scope_id;
	}
}

uint16_t rb_cm_src_port(struct rdma_cm_id *id)
{
	return ntohs(rdma_get_src_port(id));
}

// rb_cm_set_min_rnr_timer changes an RTS RC QP's RNR NAK timer (an
// RTS->RTS transition): the CM's connection setup leaves it at 0, 655 ms.
int rb_cm_set_min_rnr_timer(struct ibv_qp *qp, uint8_t min_rnr_timer)
{
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.min_rnr_timer = min_rnr_timer;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_MIN_RNR_TIMER);
}

int rb_cm_query_qp(struct ibv_qp *qp, struct rb_cm_qp_attr *out)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int mask = IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_SQ_PSN |
		   IBV_QP_RQ_PSN | IBV_QP_ACCESS_FLAGS | IBV_QP_AV;
	int ret;
	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_TIMEOUT |
			IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MIN_RNR_TIMER;
	memset(&a, 0, sizeof(a));
	ret = ibv_query_qp(qp, &a, mask, &ia);
	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	out->state = a.qp_state;
	out->path_mtu = a.path_mtu;
	out->dest_qp_num = a.dest_qp_num;
	out->sq_psn = a.sq_psn;
	out->rq_psn = a.rq_psn;
	out->access = a.qp_access_flags;
	out->max_rd_atomic = a.max_rd_atomic;
	out->max_dest_rd_atomic = a.max_dest_rd_atomic;
	out->sgid_index = a.ah_attr.grh.sgid_index;
	out->timeout = a.timeout;
	out->retry_cnt = a.retry_cnt;
	out->rnr_retry = a.rnr_retry;
	out->min_rnr_timer = a.min_rnr_timer;
	return 0;
}
