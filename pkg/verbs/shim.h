// Thin C wrappers over libibverbs for what cgo cannot reach directly:
// static-inline verbs, macros over compat structs, and fields inside
// anonymous unions. Each wrapper returns 0 or an errno value.
#ifndef RDMA_BENCH_SHIM_H
#define RDMA_BENCH_SHIM_H

#include <stdint.h>
#include <infiniband/verbs.h>

// rb_path is everything needed to address a peer QP (RTR) or a UD peer (AH).
struct rb_path {
	uint32_t dest_qpn;
	uint32_t rq_psn;
	uint16_t dlid;
	uint8_t dgid[16];
	uint8_t is_global;
	uint8_t sgid_index;
	uint8_t port;
	uint8_t sl;
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint8_t mtu; // enum ibv_mtu
	uint8_t max_rd_atomic;
	uint8_t min_rnr_timer;
};

// rb_wc is a plain copy of the fields of ibv_wc that Go needs.
struct rb_wc {
	uint64_t wr_id;
	uint32_t status;
	uint32_t opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm_data; // host order
	uint32_t wc_flags;
	uint32_t src_qp;
	uint32_t qp_num;
};

// rb_wr describes one work request posted from Go (set-up and tests only:
// the measured data path posts from C).
struct rb_wr {
	uint64_t wr_id;
	uint64_t laddr;
	uint32_t length;
	uint32_t lkey;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t opcode;     // enum ibv_wr_opcode
	uint32_t send_flags; // enum ibv_send_flags
	uint32_t imm_data;   // host order
	uint64_t compare_add;
	uint64_t swap;
	struct ibv_ah *ah; // UD only
	uint32_t remote_qpn;
	uint32_t remote_qkey;
};

int rb_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr);
int rb_query_gid(struct ibv_context *ctx, uint8_t port, int index, uint8_t out[16]);
int rb_query_gid_type(struct ibv_context *ctx, uint8_t port, int index, uint32_t *type);
// rb_query_gid_table returns the device's valid GID entries of every port
// (ibv_query_gid_table): their count, or a negative errno.
long rb_query_gid_table(struct ibv_context *ctx, struct ibv_gid_entry *out, size_t max);

int rb_qp_to_init(struct ibv_qp *qp, uint8_t port, uint32_t access, uint32_t qkey);
int rb_qp_to_rtr(struct ibv_qp *qp, const struct rb_path *p);
int rb_qp_to_rts(struct ibv_qp *qp, uint32_t sq_psn, uint8_t timeout, uint8_t retry_cnt,
		 uint8_t rnr_retry, uint8_t max_rd_atomic);
int rb_qp_state(struct ibv_qp *qp, int *state);
struct ibv_ah *rb_create_ah(struct ibv_pd *pd, const struct rb_path *p);

int rb_post_send(struct ibv_qp *qp, const struct rb_wr *w);
// rb_create_qp_ex creates a QP through ibv_create_qp_ex that can post
// send_ops (IBV_QP_EX_WITH_*) through the ibv_wr_* API; ia->cap gets the
// granted capabilities.
struct ibv_qp *rb_create_qp_ex(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_qp_init_attr *ia,
			       uint64_t send_ops);
int rb_post_recv(struct ibv_qp *qp, uint64_t wr_id, uint64_t addr, uint32_t length, uint32_t lkey);
int rb_poll_cq(struct ibv_cq *cq, int n, struct rb_wc *out);
int rb_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int rb_wait_cq_event(struct ibv_comp_channel *ch, int timeout_ms, struct ibv_cq **cq);

// rb_poll_in waits up to timeout_ms for fd to become readable, retrying
// after a signal. It returns 0, ETIMEDOUT, or poll's errno value.
int rb_poll_in(int fd, int timeout_ms);

#endif
