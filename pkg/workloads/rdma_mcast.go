package workloads

import (
	"errors"
	"fmt"
	"io"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// With -g (--mcg), UD sends go to multicast groups rather than to the
// peer's queue pairs. Every queue pair that receives (the server's; the
// client's too for send_lat's pongs and -b) has a group of its own,
// chosen at random for the run (verbs.RandomGroup) and told to the peer
// in its endpoint (MGID): the peer's address handle targets the group,
// with QP number 0xFFFFFF. A group per receiving queue pair, and none
// joined by its sender, keeps every message to one receiver, as the loops
// count them, whether or not the device loops a sender's own multicast
// back to it (rxe does, to every attached queue pair). The queue pair is
// attached once connected, before the ready barrier, so before the peer
// sends; it is detached when the side closes, failed runs included.

// mcastMember is a queue pair's membership of its multicast group.
type mcastMember struct {
	group    verbs.GID
	attached bool
	join     io.Closer // the IP-level membership on the GID's netdev
}

// mcastReceives tells whether this side's queue pairs receive, and so
// need groups.
func (n *rdmaSide) mcastReceives() bool {
	return n.s.spec.Mcast && n.s.plan.postRecvs
}

// mcastSends tells whether this side sends (to the peer's groups).
func (n *rdmaSide) mcastSends() bool {
	p := n.s.plan
	return n.s.spec.Mcast && (p.send || p.ping || p.pong)
}

// chooseGroups checks the port for multicast and gives every receiving
// queue pair its group.
func (n *rdmaSide) chooseGroups() error {
	if !n.s.spec.Mcast {
		return nil
	}
	if n.port.LinkLayer != verbs.LinkEthernet {
		return fmt.Errorf("-g (--mcg) needs a RoCE port: %s port %d is %s, whose multicast groups are joined through the subnet manager, which rdma-bench does not do",
			n.ctx.Name(), n.s.local.IBPort, n.port.LinkLayer)
	}
	if !n.mcastReceives() {
		return nil
	}
	if n.gid.Netdev == "" {
		return fmt.Errorf("-g (--mcg): %s port %d GID %d has no network device to join the multicast groups on", n.ctx.Name(), n.s.local.IBPort, n.gid.Index)
	}
	for _, wk := range n.ws {
		for _, q := range wk.qps {
			q.mc = &mcastMember{group: verbs.RandomGroup(n.gid.GID)}
		}
	}
	return nil
}

// mgid is the group q receives through for its endpoint; zero for none.
func (q *qpRes) mgid() exchange.GID {
	if q.mc == nil {
		return exchange.GID{}
	}
	return exchange.GID(q.mc.group)
}

// joinGroup joins q's group, at the IP level on the GID's netdev (so the
// network stack passes the group's RoCE v2 packets on, as rdma_cm's
// multicast join does on RoCE) and then with the queue pair itself.
func (n *rdmaSide) joinGroup(q *qpRes) error {
	if q.mc == nil {
		return nil
	}
	var err error
	if q.mc.join, err = joinIP(n.gid.Netdev, q.mc.group); err != nil {
		return err
	}
	if err := q.qp.AttachMcast(q.mc.group, 0); err != nil {
		return err
	}
	q.mc.attached = true
	return nil
}

// leaveGroup detaches q from its group (before the queue pair is
// destroyed) and leaves it at the IP level.
func (q *qpRes) leaveGroup() error {
	if q.mc == nil {
		return nil
	}
	var errs []error
	if q.mc.attached {
		errs = append(errs, q.qp.DetachMcast(q.mc.group, 0))
		q.mc.attached = false
	}
	if q.mc.join != nil {
		errs = append(errs, q.mc.join.Close())
		q.mc.join = nil
	}
	return errors.Join(errs...)
}

// mcastTarget addresses UD sends to the peer's group for queue pair k,
// when multicast: the path is global (a GRH) and the QP number 0xFFFFFF.
func (n *rdmaSide) mcastTarget(path verbs.Path, remote verbs.Remote, pe exchange.Endpoint, k int) (verbs.Path, verbs.Remote, error) {
	if !n.mcastSends() {
		return path, remote, nil
	}
	g := verbs.GID(pe.MGID)
	switch {
	case g == verbs.GID{}:
		return path, remote, fmt.Errorf("the peer gave no multicast group for queue pair %d", k)
	case g.IsIPv4() != n.gid.GID.IsIPv4():
		return path, remote, fmt.Errorf("the peer's multicast group %s and this side's GID %s are of different IP versions: choose GIDs of one version on both sides (-x)", g, n.gid.GID)
	}
	path.Global = true
	return path, verbs.Remote{QPN: verbs.MulticastQPN, GID: g}, nil
}

// mcastParams lists the run's groups: the server's, then the client's.
func (n *rdmaSide) mcastParams(p *report.Params) {
	if !n.s.spec.Mcast {
		return
	}
	var own, peer []string
	for _, wk := range n.ws {
		for _, q := range wk.qps {
			if q.mc != nil {
				own = append(own, q.mc.group.String())
			}
		}
	}
	for _, e := range n.peer.QPs {
		if e.MGID != (exchange.GID{}) {
			peer = append(peer, e.MGID.String())
		}
	}
	if n.s.role == client {
		own, peer = peer, own
	}
	p.McastGroups = append(own, peer...)
}
