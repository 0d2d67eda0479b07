package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
	"github.com/rdma-bench/rdma-bench/pkg/workloads/tcp"
)

// benchFlags are the flags of `run` and `server`: the workload's
// parameters (perftest's letters where perftest has one), the device, and
// the connection.
type benchFlags struct {
	cfg      workloads.Config
	size     string
	all      bool
	sweepMin string
	sweepMax string
	seconds  float64
	port     int
	tcpPort  int
	bind     string
	busyPoll bool
	clock    string
}

func addBenchFlags(fs *pflag.FlagSet, b *benchFlags) {
	b.cfg = workloads.Defaults()
	c := &b.cfg
	fs.StringVarP(&c.Transport, "connection", "c", "RC", "transport: RC, UC or UD")
	fs.StringVarP(&b.size, "size", "s", "", "message size in bytes, with K, M or G (default 2 for latency, 64K for bandwidth, 8 for atomics)")
	fs.BoolVarP(&b.all, "all", "a", false, "sweep sizes over powers of two (default 2 B to 8 MiB)")
	fs.StringVar(&b.sweepMin, "sweep-min", "2", "smallest size of an -a sweep")
	fs.StringVar(&b.sweepMax, "sweep-max", "8M", "largest size of an -a sweep")
	fs.IntVarP(&c.Iterations, "iters", "n", 0, "timed iterations (default 1000 for latency, 5000 for bandwidth)")
	fs.Float64VarP(&b.seconds, "duration", "D", 0, "run for this many seconds instead of a count of iterations")
	fs.IntVar(&c.Warmup, "warmup", -1, "untimed warm-up iterations (default 10% of -n, at most 100)")
	fs.IntVarP(&c.TxDepth, "tx-depth", "t", 0, "send queue depth: work requests in flight per QP (default 128; 64 for latency)")
	fs.IntVarP(&c.RxDepth, "rx-depth", "r", 0, "receive queue depth (default 512; 16 for latency)")
	fs.IntVarP(&c.CQMod, "cq-mod", "Q", 0, "signal one completion every N work requests (default 100 for bandwidth)")
	fs.IntVarP(&c.PostList, "post-list", "l", 1, "work requests per ibv_post_send call")
	fs.IntVarP(&c.Inline, "inline-size", "I", -1, "largest message sent inline (default: the device's maximum, for WRITE and SEND)")
	fs.IntVarP(&c.QPs, "qp", "q", 1, "queue pairs (bandwidth)")
	fs.IntVar(&c.Threads, "threads", 1, "worker threads, each with its own CQ and QPs (bandwidth)")
	fs.BoolVarP(&c.Events, "events", "e", false, "wait for completion events instead of busy polling")
	fs.BoolVarP(&c.Bidir, "bidir", "b", false, "bidirectional bandwidth (write_bw, read_bw, send_bw)")
	fs.BoolVar(&c.Imm, "imm", false, "RDMA WRITE with immediate")
	fs.StringVarP(&c.Atomic, "atomic", "A", "", "atomic operation: fadd or cswap (default fadd)")
	fs.BoolVar(&c.Validate, "validate", false, "pattern the payloads and check every byte after the run")
	fs.StringVarP(&c.Device, "ib-dev", "d", "", "RDMA device (default: the first)")
	fs.IntVarP(&c.IBPort, "ib-port", "i", 1, "device port")
	fs.IntVarP(&c.GIDIndex, "gid-index", "x", -1, "GID index (default: the RoCE v2 IPv4 GID, else the first)")
	fs.IntVarP(&c.MTU, "mtu", "m", 0, "path MTU: 256, 512, 1024, 2048 or 4096 (default: the port's active MTU)")
	fs.IntVar(&c.SL, "sl", 0, "service level")
	fs.IntVar(&c.TClass, "tclass", 0, "traffic class (RoCE: DSCP and ECN)")
	fs.IntVar(&c.CPU, "cpu", -1, "pin the measuring thread to this CPU (thread i to CPU+i)")
	fs.DurationVar(&c.IdleTimeout, "idle-timeout", 10*time.Second, "give up when the peer makes no progress for this long")
	fs.DurationVar(&c.ReportInterval, "report-interval", 0, "print live interval and cumulative figures on stderr at this period (e.g. 1s)")
	fs.IntVarP(&b.port, "port", "p", exchange.DefaultPort, "TCP port of the connection exchange")
	fs.IntVar(&b.tcpPort, "tcp-port", exchange.DefaultPort+1, "TCP port of the TCP baseline's control connection")
	fs.BoolVar(&b.busyPoll, "busy-poll", false, "tcp_lat, tcp_bw: spin on non-blocking receives instead of blocking")
	fs.StringVar(&b.bind, "bind", "", "server: address to listen on (default: all)")
	fs.BoolVarP(&c.RDMACM, "rdma-cm", "R", false, "connect queue pairs with rdma_cm (librdmacm), RC and UC")
	fs.StringVar(&b.clock, "clock", "auto", "timestamp clock: monotonic (CLOCK_MONOTONIC_RAW), tsc (calibrated against it), or auto (tsc only where clock_gettime is a system call)")
}

// setClock chooses the measuring clock, before anything is measured.
func (b *benchFlags) setClock() error {
	mode, err := verbs.ParseClock(b.clock)
	if err != nil {
		return usageError("--clock: %v", err)
	}
	if _, err := verbs.SetClock(mode); err != nil {
		return usageError("--clock: %v; use --clock auto or monotonic", err)
	}
	return nil
}

// sizes resolves -s and -a into the list of sizes to run (nil: default).
func (b *benchFlags) sizes() ([]int, error) {
	if b.all {
		if b.size != "" {
			return nil, usageError("-s and -a cannot go together: -a sweeps sizes from --sweep-min to --sweep-max")
		}
		lo, err := workloads.ParseSize(b.sweepMin)
		if err != nil {
			return nil, usageError("--sweep-min: %v", err)
		}
		hi, err := workloads.ParseSize(b.sweepMax)
		if err != nil {
			return nil, usageError("--sweep-max: %v", err)
		}
		s, err := workloads.SweepSizes(lo, hi)
		if err != nil {
			return nil, usageError("%v", err)
		}
		return s, nil
	}
	if b.size == "" {
		return []int{0}, nil
	}
	n, err := workloads.ParseSize(b.size)
	if err != nil {
		return nil, usageError("-s: %v", err)
	}
	return []int{n}, nil
}

// tcpConfig is the TCP baseline's configuration from the same flags.
func (b *benchFlags) tcpConfig(workload string, size int) tcp.Config {
	c := tcp.Defaults()
	c.Workload, c.Size, c.Iterations, c.Warmup = workload, size, b.cfg.Iterations, b.cfg.Warmup
	c.Duration, _ = b.duration()
	c.BusyPoll, c.CPU, c.IdleTimeout = b.busyPoll, b.cfg.CPU, b.cfg.IdleTimeout
	c.ReportInterval, c.Progress = b.cfg.ReportInterval, b.cfg.Progress
	return c
}

// isTCP reports whether a workload is the TCP baseline.
func isTCP(workload string) bool { return workload == tcp.Lat || workload == tcp.Bw }

// duration converts -D seconds.
func (b *benchFlags) duration() (time.Duration, error) {
	if b.seconds < 0 {
		return 0, usageError("-D %g: duration must be positive", b.seconds)
	}
	return time.Duration(b.seconds * float64(time.Second)), nil
}
