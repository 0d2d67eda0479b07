//go:build cgo

package main

import (
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/pkg/engine"
	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

// benchFlags are the flags of run, suite and server: the shared
// parameters (declared once, in pkg/workloads' parameter table), this
// side's local settings, and the connection.
type benchFlags struct {
	spec      workloads.Spec
	local     workloads.Local
	all       bool
	sweepMin  string
	sweepMax  string
	port      int
	clock     string
	maxMemory string
	fs        *pflag.FlagSet
	rate      *workloads.FlagValue // --rate, which run takes as a list
}

// tokenEnv names the environment variable that gives the token (better
// than --token, which other users see in the process list).
const tokenEnv = "RDMA_BENCH_TOKEN"

func addBenchFlags(fs *pflag.FlagSet, b *benchFlags) {
	b.fs = fs
	b.spec = workloads.NewSpec("")
	b.local = workloads.DefaultLocal()
	for _, p := range workloads.Params() {
		v := p.Value(&b.spec)
		if p.Key == "rate" {
			b.rate = v
		}
		f := fs.VarPF(v, p.Flag, p.Short, p.Usage)
		if p.IsBool() {
			f.NoOptDefVal = "true"
		}
	}
	l := &b.local
	fs.BoolVarP(&b.all, "all", "a", false, "sweep sizes over powers of two (default 2 B to 8 MiB; a UD sweep stops at the MTU)")
	fs.StringVar(&b.sweepMin, "sweep-min", "2", "smallest size of an -a sweep")
	fs.StringVar(&b.sweepMax, "sweep-max", "8M", "largest size of an -a sweep")
	fs.StringVarP(&l.Device, "ib-dev", "d", "", "RDMA device (default: the first)")
	fs.IntVarP(&l.IBPort, "ib-port", "i", 1, "device port (1..255)")
	fs.IntVarP(&l.GIDIndex, "gid-index", "x", -1, "GID index (default: the RoCE v2 IPv4 GID, else the first)")
	fs.IntVarP(&l.MTU, "mtu", "m", 0, "path MTU: 256, 512, 1024, 2048 or 4096 (default: the port's active MTU)")
	fs.IntVar(&l.SL, "sl", 0, "service level (0..15)")
	fs.IntVar(&l.TClass, "tclass", 0, "traffic class (0..255; RoCE: DSCP and ECN)")
	fs.IntVarP(&l.Inline, "inline-size", "I", -1, "largest message sent inline (default: the device's maximum, for WRITE and SEND)")
	fs.BoolVar(&l.ODP, "odp", false, "register memory for on-demand paging (perftest's --odp): refused, before anything is allocated, where the device lacks it (naming what), and, untested so far, where it has it")
	fs.IntVar(&l.CPU, "cpu", -1, "pin measuring thread i to CPU N+i (a loopback server's threads follow the client's); default: a loopback run pins its two sides apart from the first allowed CPU where there are enough, so that they never share one")
	fs.BoolVar(&l.Counters, "counters", true, "read the RDMA port's counters (sysfs and netlink) around every run: deltas in the JSON, and a run where a retransmission or error counter moved is marked not clean")
	fs.DurationVar(&l.IdleTimeout, "idle-timeout", workloads.DefaultIdleTimeout, "give up when the peer makes no progress for this long")
	fs.DurationVar(&l.ReportInterval, "report-interval", 0, "client: print live interval and cumulative figures on stderr at this period (at least 10ms)")
	fs.IntVarP(&b.port, "port", "p", exchange.DefaultPort, "TCP port of the control connection")
	fs.IntVar(&l.DataPort, "data-port", 0, "server: TCP port of the TCP baseline's data connection (default: a free one)")
	fs.StringVar(&b.maxMemory, "max-memory", "", "the most memory one run may take on this side, such as 512M or 4G (default: half of this host's memory)")
	fs.StringVar(&l.Token, "token", "", "a shared secret: a server refuses clients without it, before allocating anything (default $"+tokenEnv+", which an empty --token never turns off; sent in clear)")
	fs.StringVar(&b.clock, "clock", "auto", "timestamp clock: monotonic (CLOCK_MONOTONIC_RAW), tsc (calibrated against it), or auto (tsc only where clock_gettime is a system call)")
}

// check validates the local settings and chooses the clock, before
// anything is measured.
func (b *benchFlags) check() error {
	if err := b.local.Check(); err != nil {
		return usageError("%v", err)
	}
	if b.port < 1 || b.port > 65535 {
		return usageError("-p %d: the control port must be 1..65535", b.port)
	}
	if !b.fs.Changed("token") {
		b.local.Token = os.Getenv(tokenEnv)
	} else if b.local.Token == "" && os.Getenv(tokenEnv) != "" {
		return usageError("--token \"\" would turn off the token %s gives: drop --token to use it, or unset %s to run without a token", tokenEnv, tokenEnv)
	}
	if t := b.local.Token; len(t) > 256 || strings.IndexFunc(t, func(c rune) bool { return !unicode.IsPrint(c) }) >= 0 {
		return usageError("--token: want up to 256 printable characters")
	}
	if b.maxMemory != "" {
		m, err := workloads.ParseMemory(b.maxMemory)
		if err != nil {
			return usageError("--max-memory: %v", err)
		}
		b.local.MaxMemory = m
	}
	mode, err := engine.ParseClock(b.clock)
	if err != nil {
		return usageError("--clock: %v", err)
	}
	if _, err := engine.SetClock(mode); err != nil {
		return usageError("--clock: %v; use --clock auto or monotonic", err)
	}
	if err := workloads.CheckRate(b.spec.Rate); err != nil {
		return usageError("%v", err)
	}
	return nil
}

// sizes resolves -s and -a into the sizes to run; nil: the workload's
// default (-s unset, no sweep).
func (b *benchFlags) sizes() ([]int, error) {
	if !b.all {
		return nil, nil
	}
	if b.spec.Size != 0 {
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

// explicitKeys are the handshake keys of the shared parameters set on the
// command line.
func (b *benchFlags) explicitKeys() []string {
	var keys []string
	b.fs.Visit(func(f *pflag.Flag) {
		if p, ok := workloads.ParamByFlag(f.Name); ok {
			keys = append(keys, p.Key)
		}
	})
	return keys
}

// rejectChanged refuses flags a command does not take.
func rejectChanged(fs *pflag.FlagSet, why string, names ...string) error {
	for _, n := range names {
		if fs.Changed(n) {
			return usageError("--%s does not apply to %s", n, why)
		}
	}
	return nil
}

// rdmaFlags are the local settings of an RDMA device: a TCP baseline has
// none to take them.
var rdmaFlags = []string{"ib-dev", "ib-port", "gid-index", "mtu", "sl", "tclass", "inline-size", "odp"}

// checkRDMAFlags refuses an RDMA device flag when no workload named is an
// RDMA one, rather than measuring TCP as if it had applied.
func checkRDMAFlags(fs *pflag.FlagSet, names []string) error {
	for _, n := range names {
		if w, err := workloads.Lookup(n); err != nil || w.Family == workloads.RDMA {
			return nil
		}
	}
	return rejectChanged(fs, strings.Join(names, ", ")+": a TCP baseline uses no RDMA device", rdmaFlags...)
}

// defaultDuration makes points short (d each) unless -n or -D was given.
func (b *benchFlags) defaultDuration(d time.Duration) {
	if !b.fs.Changed("iters") && !b.fs.Changed("duration") {
		b.spec.Duration = d
	}
}

// rateSweep expands a point over run's --rate list: the closed loop (or,
// for bandwidth, the unlimited stream) first, the curve's reference, then
// each rate; the point alone when one rate or none was given.
func (b *benchFlags) rateSweep(sp workloads.Spec) []workloads.Spec {
	if !b.rate.IsList() {
		return []workloads.Spec{sp}
	}
	ref := sp
	ref.Rate = 0
	return append([]workloads.Spec{ref}, b.rate.Sweep(sp)...)
}

// oneRate refuses a --rate list where one rate is meant (the server).
func (b *benchFlags) oneRate(cmd string) error {
	if b.rate.IsList() {
		return usageError("--rate %s: %s takes one rate; a list (a latency-against-load curve) is run's", b.rate, cmd)
	}
	return nil
}
