package workloads

import (
	"fmt"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// cmTimeout bounds each rdma_cm connection.
const cmTimeout = 10 * time.Second

// With --rdma-cm, rdma_cm connects the queue pairs (like perftest's -R):
// the server listens on its RoCE address at the exchange's port number
// (rdma_cm's port space is its own), the client dials the address of the
// server's GID, once per QP, in order. Buffer addresses and keys still
// travel over the exchange.

// cmListen starts the server's rdma_cm listener, before the endpoints are
// exchanged so that it is up when the client dials.
func (n *node) cmListen(port int) (*verbs.CMListener, error) {
	ip, ok := n.gid.GID.IPv4()
	if !ok {
		return nil, fmt.Errorf("--rdma-cm needs an IPv4 RoCE GID: gid %d is %s", n.gid.Index, n.gid.GID)
	}
	typ, _ := verbs.ParseQPType(n.cfg.Transport)
	return verbs.CMListen(ip, port, typ)
}

// cmSetup hands rdma_cm the worker's PD, CQ and queue sizes for one QP.
func (n *node) cmSetup(wk *worker) verbs.CMSetup {
	return func(*verbs.Context) (verbs.CMQPConfig, error) {
		return verbs.CMQPConfig{PD: n.pd, SendCQ: wk.cq, RecvCQ: wk.cq, MaxSendWR: n.cfg.TxDepth,
			MaxRecvWR: n.cfg.RxDepth, MaxInline: n.cfg.Inline}, nil
	}
}

// cmConnect connects every QP through rdma_cm: the client dials peerGID,
// the server accepts on ln.
func (n *node) cmConnect(ln *verbs.CMListener, peerGID verbs.GID, port int) error {
	typ, _ := verbs.ParseQPType(n.cfg.Transport)
	ip, ok := peerGID.IPv4()
	if ln == nil && !ok {
		return fmt.Errorf("--rdma-cm needs the peer's IPv4 RoCE GID, got %s", peerGID)
	}
	for _, wk := range n.workers {
		for _, q := range wk.qps {
			var err error
			if ln != nil {
				q.cm, err = ln.Accept(cmTimeout, n.cmSetup(wk))
			} else {
				q.cm, err = verbs.CMDial(ip, port, typ, cmTimeout, n.cmSetup(wk))
			}
			if err != nil {
				return err
			}
			q.qp = q.cm.QP()
		}
	}
	return nil
}
