// Thin C wrappers over librdmacm (rdma_cm) for cm.go: socket addresses
// built from Go values, event waits with a deadline, and QP creation and
// connection parameters. Each wrapper returns 0 or an errno value.
#ifndef RDMA_BENCH_CM_SHIM_H
#define RDMA_BENCH_CM_SHIM_H

#include <stdint.h>
#include <rdma/rdma_cma.h>

// rb_addr is an IPv4 or IPv6 address and port as Go passes it.
struct rb_addr {
	uint8_t ip[16]; // IPv4 in the first 4 bytes when is_v4
	uint32_t scope_id;
	uint16_t port; // host order
	uint8_t is_v4;
};

// rb_cm_event is a copy of what Go needs from an rdma_cm event, which
// rb_cm_get_event has already acknowledged.
struct rb_cm_event {
	struct rdma_cm_id *id;
	struct rdma_cm_id *listen_id;
	int32_t event;
	int32_t status;
	uint8_t responder_resources;
	uint8_t initiator_depth;
};

// rb_cm_qp_caps sizes the QP that rb_cm_create_qp creates; the granted
// values are written back.
struct rb_cm_qp_caps {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_sge;
	uint32_t max_inline;
	uint8_t sig_all;
	struct ibv_srq *srq; // the QP's receive queue, or NULL for its own
};

// rb_cm_qp_attr is what rb_cm_query_qp reads back from a connected QP.
struct rb_cm_qp_attr {
	uint32_t state;
	uint32_t path_mtu; // enum ibv_mtu
	uint32_t dest_qp_num;
	uint32_t sq_psn;
	uint32_t rq_psn;
	uint32_t access;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t sgid_index;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
};

struct rdma_event_channel *rb_cm_create_channel(void);
int rb_cm_create_ep_id(struct rdma_event_channel *ch, int qp_type, const struct rb_addr *bind,
		       struct rdma_cm_id **out);
int rb_cm_bind(struct rdma_cm_id *id, const struct rb_addr *a);
int rb_cm_resolve_addr(struct rdma_cm_id *id, const struct rb_addr *dst, int timeout_ms);
int rb_cm_get_event(struct rdma_event_channel *ch, int timeout_ms, struct rb_cm_event *out);
int rb_cm_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_cq *send_cq,
		    struct ibv_cq *recv_cq, struct rb_cm_qp_caps *caps);
int rb_cm_connect(struct rdma_cm_id *id, int accept, uint8_t responder_resources,
		  uint8_t initiator_depth, uint8_t retry_count, uint8_t rnr_retry_count);
void rb_cm_addr(struct rdma_cm_id *id, int peer, struct rb_addr *out);
uint16_t rb_cm_src_port(struct rdma_cm_id *id);
int rb_cm_set_min_rnr_timer(struct ibv_qp *qp, uint8_t min_rnr_timer);
int rb_cm_query_qp(struct ibv_qp *qp, struct rb_cm_qp_attr *out);

#endif
