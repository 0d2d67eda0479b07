package workloads

import (
	"context"

	"github.com/rdma-bench/rdma-bench/pkg/engine"
	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// side is one end's transport for a run: the RDMA queue pairs and their
// engines (rdma_*.go), or the TCP data connection and its socket loop
// (tcp_*.go). The session drives both alike, through its plan.
type side interface {
	// endpoints is what the peer needs to connect to this side.
	endpoints() exchange.Endpoints
	// connect connects to the peer's endpoints and readies the loops.
	connect(ctx context.Context, peer exchange.Endpoints) error
	// workers is the number of measuring threads.
	workers() int
	// posted is the operations posted, warm-up included (RDMA).
	posted() uint64
	// pinger is worker i's latency loop.
	pinger(i int) pingLoop
	// send runs worker i's bandwidth sender: warm-up, then the timed part.
	send(i int, r *workerResult, tk *ticker) error
	// afterActive runs on worker i's thread once its active part is over,
	// before the peer is told.
	afterActive(i int, r *workerResult) error
	// pong answers pings until the peer ends or endPassive.
	pong(i int) (engine.Status, error)
	// recv takes the peer's messages until it ends or endPassive.
	recv(i int, r *workerResult) (engine.Status, error)
	// liveOps is every worker's timed operations so far (any goroutine).
	liveOps() uint64
	// endPassive ends the passive loops: the peer is done.
	endPassive()
	// abort makes every loop return at once (any goroutine, any time).
	abort()
	// validate checks the payloads after the run: "" or what was wrong.
	validate(results []workerResult) string
	// params adds the side's resolved settings to a result's parameters.
	params(p *report.Params)
	// deviceInfo describes the RDMA device used; nil for TCP.
	deviceInfo() *report.Device
	close() error
}
