package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
	"github.com/rdma-bench/rdma-bench/pkg/workloads/tcp"
)

func init() {
	register("server", "wait for a client and run the server side of its workload", runServer)
}

// sharedFlags maps the flags a client also sends to their handshake keys.
var sharedFlags = map[string]string{
	"connection": "transport", "size": "size", "iters": "iterations", "duration": "duration",
	"warmup": "warmup", "tx-depth": "tx_depth", "rx-depth": "rx_depth", "cq-mod": "cq_mod",
	"post-list": "post_list", "qp": "qps", "threads": "threads", "events": "completion", "rdma-cm": "rdma_cm",
	"bidir": "bidir", "imm": "imm", "atomic": "atomic", "validate": "validate",
}

func runServer(ctx context.Context, args []string) error {
	fs := newFlagSet("server")
	var b benchFlags
	addBenchFlags(fs, &b)
	persistent := fs.BoolP("persistent", "P", false, "serve one run after another until interrupted")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := b.setClock(); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageError("unexpected argument %q", fs.Arg(1))
	}
	if b.all {
		return usageError("-a belongs on the client: the server follows the client's sizes")
	}
	if fs.Changed("report-interval") {
		return usageError("--report-interval belongs on the client: the server's figures go to the client at the end of each run")
	}
	cfg := b.cfg
	var err error
	if cfg.Duration, err = b.duration(); err != nil {
		return err
	}
	if b.size != "" {
		if cfg.Size, err = workloads.ParseSize(b.size); err != nil {
			return usageError("-s: %v", err)
		}
	}
	var keys []string
	fs.Visit(func(f *pflag.Flag) {
		if k, ok := sharedFlags[f.Name]; ok {
			keys = append(keys, k)
		}
	})
	if fs.NArg() == 1 {
		// An optional workload name pins what clients may run.
		cfg.Workload = fs.Arg(0)
		if _, err := workloads.Lookup(cfg.Workload); err != nil {
			return usageError("%v", err)
		}
		keys = append(keys, "workload")
	}
	ln, err := exchange.Listen(b.bind, b.port)
	if err != nil {
		return err
	}
	defer ln.Close()
	tln, err := exchange.Listen(b.bind, b.tcpPort)
	if err != nil {
		return err
	}
	defer tln.Close()
	fmt.Fprintf(os.Stderr, "rdma-bench server listening on %s (TCP baseline on %s)\n", ln.Addr(), tln.Addr())
	// RDMA and TCP clients are served side by side; without --persistent
	// the first finished run (a whole sweep) ends the server.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sv := &workloads.Server{Base: cfg, Explicit: cfg.ParamsOf(keys), Log: os.Stderr}
	tcfg := b.tcpConfig("", cfg.Size)
	errs := make(chan error, 2)
	go func() { errs <- sv.Serve(ctx, ln, *persistent) }()
	go func() { errs <- tcp.ServeListener(ctx, tcfg, tcpExplicit(cfg.ParamsOf(keys)), tln, *persistent) }()
	err = <-errs
	cancel()
	<-errs
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// tcpExplicit keeps the explicit parameters the TCP baseline shares.
func tcpExplicit(p map[string]string) map[string]string {
	out := map[string]string{}
	for _, k := range []string{"size", "iterations", "duration", "warmup"} {
		if v, ok := p[k]; ok {
			out[k] = v
		}
	}
	return out
}
