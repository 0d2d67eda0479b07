#include <errno.h>
#include <poll.h>
#include <string.h>
#include <arpa/inet.h>
#include "shim.h"

int rb_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	return ibv_query_port(ctx, port, attr);
}

int rb_query_gid(struct ibv_context *ctx, uint8_t port, int index, uint8_t out[16])
{
	union ibv_gid gid;
	int ret = ibv_query_gid(ctx, port, index, &gid);
	if (ret)
		return ret < 0 ? errno : ret;
	memcpy(out, gid.raw, 16);
	return 0;
}

int rb_query_gid_type(struct ibv_context *ctx, uint8_t port, int index, uint32_t *type)
{
	struct ibv_gid_entry e;
	int ret = ibv_query_gid_ex(ctx, port, index, &e, 0);
	if (ret)
		return ret < 0 ? errno : ret;
	*type = e.gid_type;
	return 0;
}

long rb_query_gid_table(struct ibv_context *ctx, struct ibv_gid_entry *out, size_t max)
{
	return (long)ibv_query_gid_table(ctx, out, max, 0);
}

int rb_qp_to_init(struct ibv_qp *qp, uint8_t port, uint32_t access, uint32_t qkey)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = port;
	if (qp->qp_type == IBV_QPT_UD) {
		a.qkey = qkey;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = access;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	return ibv_modify_qp(qp, &a, mask);
}

static void fill_ah(struct ibv_ah_attr *ah, const struct rb_path *p)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = p->dlid;
	ah->sl = p->sl;
	ah->port_num = p->port;
	if (p->is_global) {
		ah->is_global = 1;
		memcpy(ah->grh.dgid.raw, p->dgid, 16);
		ah->grh.sgid_index = p->sgid_index;
		ah->grh.hop_limit = p->hop_limit ? p->hop_limit : 64;
		ah->grh.traffic_class = p->traffic_class;
	}
}

int rb_qp_to_rtr(struct ibv_qp *qp, const struct rb_path *p)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (qp->qp_type != IBV_QPT_UD) {
		a.path_mtu = p->mtu;
		a.dest_qp_num = p->dest_qpn;
		a.rq_psn = p->rq_psn;
		fill_ah(&a.ah_attr, p);
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
		if (qp->qp_type == IBV_QPT_RC) {
			a.max_dest_rd_atomic = p->max_rd_atomic;
			a.min_rnr_timer = p->min_rnr_timer;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
	}
	return ibv_modify_qp(qp, &a, mask);
}

int rb_qp_to_rts(struct ibv_qp *qp, uint32_t sq_psn, uint8_t timeout, uint8_t retry_cnt,
		 uint8_t rnr_retry, uint8_t max_rd_atomic)
{
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	if (qp->qp_type == IBV_QPT_RC) {
		a.timeout = timeout;
		a.retry_cnt = retry_cnt;
		a.rnr_retry = rnr_retry;
		a.max_rd_atomic = max_rd_atomic;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ibv_modify_qp(qp, &a, mask);
}

int rb_qp_state(struct ibv_qp *qp, int *state)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int ret = ibv_query_qp(qp, &a, IBV_QP_STATE, &ia);
	if (ret)
		return ret;
	*state = a.qp_state;
	return 0;
}

struct ibv_ah *rb_create_ah(struct ibv_pd *pd, const struct rb_path *p)
{
	struct ibv_ah_attr ah;
	fill_ah(&ah, p);
	return ibv_create_ah(pd, &ah);
}

int rb_post_send(struct ibv_qp *qp, const struct rb_wr *w)
{
	struct ibv_sge sge = { .addr = w->laddr, .length = w->length, .lkey = w->lkey };
	struct ibv_send_wr wr, *bad = NULL;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = w->wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = w->opcode;
	wr.send_flags = w->send_flags;
	wr.imm_data = htonl(w->imm_data);
	switch (w->opcode) {
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wr.wr.atomic.remote_addr = w->raddr;
		wr.wr.atomic.rkey = w->rkey;
		wr.wr.atomic.compare_add = w->compare_add;
		wr.wr.atomic.swap = w->swap;
		break;
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		if (w->ah) {
			wr.wr.ud.ah = w->ah;
			wr.wr.ud.remote_qpn = w->remote_qpn;
			wr.wr.ud.remote_qkey = w->remote_qkey;
		}
		break;
	default:
		wr.wr.rdma.remote_addr = w->raddr;
		wr.wr.rdma.rkey = w->rkey;
	}
	return ibv_post_send(qp, &wr, &bad);
}

int rb_post_recv(struct ibv_qp *qp, uint64_t wr_id, uint64_t addr, uint32_t length, uint32_t lkey)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad = NULL;
	return ibv_post_recv(qp, &wr, &bad);
}

// rb_poll_cq returns the number of completions copied to out, or a negative
// value on failure.
int rb_poll_cq(struct ibv_cq *cq, int n, struct rb_wc *out)
{
	struct ibv_wc wc[16];
	int got = 0;
	while (got < n) {
		int want = n - got > 16 ? 16 : n - got;
		int r = ibv_poll_cq(cq, want, wc);
		if (r < 0)
			return r;
		for (int i = 0; i < r; i++) {
			struct rb_wc *o = &out[got + i];
			o->wr_id = wc[i].wr_id;
			o->status = wc[i].status;
			o->opcode = wc[i].opcode;
			o->vendor_err = wc[i].vendor_err;
			o->byte_len = wc[i].byte_len;
			o->imm_data = ntohl(wc[i].imm_data);
			o->wc_flags = wc[i].wc_flags;
			o->src_qp = wc[i].src_qp;
			o->qp_num = wc[i].qp_num;
		}
		got += r;
		if (r < want)
			break;
	}
	return got;
}

int rb_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return ibv_req_notify_cq(cq, solicited_only);
}

int rb_poll_in(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int r;
	do {
		r = poll(&pfd, 1, timeout_ms);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno;
	return r == 0 ? ETIMEDOUT : 0;
}

// rb_wait_cq_event waits up to timeout_ms for a completion event on ch.
// It returns 0 with *cq set, ETIMEDOUT, or an errno value.
int rb_wait_cq_event(struct ibv_comp_channel *ch, int timeout_ms, struct ibv_cq **cq)
{
	void *ctx;
	int r = rb_poll_in(ch->fd, timeout_ms);
	if (r)
		return r;
	if (ibv_get_cq_event(ch, cq, &ctx))
		return errno ? errno : EIO;
	return 0;
}

struct ibv_qp *rb_create_qp_ex(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_qp_init_attr *ia,
			       uint64_t send_ops)
{
	struct ibv_qp_init_attr_ex ax;
	memset(&ax, 0, sizeof(ax));
	ax.send_cq = ia->send_cq;
	ax.recv_cq = ia->recv_cq;
	ax.srq = ia->srq;
	ax.cap = ia->cap;
	ax.qp_type = ia->qp_type;
	ax.sq_sig_all = ia->sq_sig_all;
	ax.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ax.pd = pd;
	ax.send_ops_flags = send_ops;
	errno = 0;
	struct ibv_qp *qp = ibv_create_qp_ex(ctx, &ax);
	if (qp)
		ia->cap = ax.cap;
	return qp;
}
