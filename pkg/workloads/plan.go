package workloads

import (
	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/point"
)

// role is the side of a run: the client initiates, the server answers.
type role int

const (
	client role = iota
	server
)

func (r role) String() string { return [...]string{"client", "server"}[r] }

// plan is what one side does in a run, RDMA and TCP alike. Each worker
// first runs its active part (ping, or streaming sends), then, once every
// worker is done and the peer has been told, its passive part (answering
// pings, taking receives) until the peer says it is done too.
type plan struct {
	ping      bool // latency initiator
	pong      bool // ping-pong responder
	send      bool // bandwidth sender
	recv      bool // takes receives while streaming, and after
	postRecvs bool // receives must be posted before the run starts
	// halve makes a latency sample half the round trip (ping-pong).
	halve bool
}

// planFor derives a side's plan from the workload.
func planFor(w catalog.Workload, s point.Resolved, r role) plan {
	// A receive completion is needed for SEND (a TCP message is one), and
	// for RDMA WRITE with immediate.
	needsRecv := w.Op == catalog.OpSend || (w.Op == catalog.OpWrite && s.Imm)
	var p plan
	if w.Latency() {
		p.ping = r == client
		p.pong = r == server && w.PingPong()
		p.halve = w.PingPong()
		p.postRecvs = needsRecv
		return p
	}
	p.send = r == client || s.Bidir
	p.recv = needsRecv && (r == server || s.Bidir)
	p.postRecvs = p.recv
	return p
}
