package tcp

import (
	"context"
	"fmt"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// Loopback runs cfg with both sides in this process over 127.0.0.1 on free
// ports: a server goroutine and RunClient. Only the client's thread is
// pinned (cfg.CPU); the server's is left to the scheduler.
func Loopback(ctx context.Context, cfg Config) (*report.Result, error) {
	if err := cfg.Normalize(); err != nil {
		return nil, err
	}
	ln, err := exchange.Listen("127.0.0.1", 0)
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	base := cfg
	base.CPU = -1
	served := make(chan error, 1)
	go func() { served <- ServeListener(ctx, base, nil, ln, false) }()

	res, err := RunClient(ctx, cfg, "127.0.0.1", ln.Port())
	if err != nil {
		cancel() // a server still waiting for the client gives up
	}
	serr := <-served
	if err == nil && serr != nil {
		return res, fmt.Errorf("loopback server: %w", serr)
	}
	return res, err
}
