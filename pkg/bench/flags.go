// Package bench plans and runs the points of rdma-bench's measuring
// commands (run, suite, server's checks): the flags they share, the
// resolution of every point against the device's limits before anything
// runs, the repeat loop, and the writing of what was measured.
//
// What the user typed wrong is an bad input (package inputerr); what prints takes an
// io.Writer.
package bench

import (
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/engine"
	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

// Flags are the flags of run, suite and server: the shared parameters
// (declared once, in catalog's parameter table), this side's local
// settings, and the connection. They only produce values: Resolve plans
// Points from the Specs and Local they give, and Run takes a Plan.
type Flags struct {
	Spec  point.Spec
	Local workloads.Local
	Port  int // -p: the control connection's

	all       bool
	sweepMin  string
	sweepMax  string
	clock     string
	maxMemory string
	fs        *pflag.FlagSet
	rate      *point.FlagValue // --rate, which run takes as a list
	loaders   *point.FlagValue // --loaders, which run takes as a list
}

// TokenEnv names the environment variable that gives the token (better
// than --token, which other users see in the process list).
const TokenEnv = "RDMA_BENCH_TOKEN"

// Register adds the flags to fs.
func (b *Flags) Register(fs *pflag.FlagSet) {
	b.fs = fs
	b.Spec = point.NewSpec("")
	b.Local = workloads.DefaultLocal()
	for _, p := range point.Params() {
		v := p.Value(&b.Spec)
		switch p.Key {
		case "rate":
			b.rate = v
		case "loaders":
			b.loaders = v
		}
		f := fs.VarPF(v, p.Flag, p.Short, p.Usage)
		if p.IsBool() {
			f.NoOptDefVal = "true"
		}
	}
	l := &b.Local
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
	fs.Var(numaFlag{&l.NUMA}, "numa-node", "NUMA node of the measuring threads and registered buffers: auto (the RDMA device's node, unless this process's CPU affinity is already restricted or --cpu is given), off, or a node number (perftest's --numa_node; --disable_numa is off)")
	fs.BoolVar(&l.Counters, "counters", true, "read the RDMA port's counters (sysfs and netlink) around every run: deltas in the JSON, and a run where a retransmission or error counter moved is marked not clean")
	fs.DurationVar(&l.IdleTimeout, "idle-timeout", workloads.DefaultIdleTimeout, "give up when the peer makes no progress for this long")
	fs.DurationVar(&l.ReportInterval, "report-interval", 0, "client: print live interval and cumulative figures on stderr at this period (at least 10ms)")
	fs.IntVarP(&b.Port, "port", "p", exchange.DefaultPort, "TCP port of the control connection")
	fs.IntVar(&l.DataPort, "data-port", 0, "server: TCP port of the TCP baseline's data connection (default: a free one)")
	fs.StringVar(&b.maxMemory, "max-memory", "", "the most memory one run may take on this side, such as 512M or 4G (default: half of this host's memory)")
	fs.StringVar(&l.Token, "token", "", "a shared secret: a server refuses clients without it, before allocating anything (default $"+TokenEnv+", which an empty --token never turns off; sent in clear)")
	fs.StringVar(&b.clock, "clock", "auto", "timestamp clock: monotonic (CLOCK_MONOTONIC_RAW), tsc (calibrated against it), or auto (tsc only where clock_gettime is a system call)")
}

// Check validates the local settings and chooses the clock, before
// anything is measured.
func (b *Flags) Check() error {
	if err := b.Local.Check(); err != nil {
		return inputError("%v", err)
	}
	if b.Port < 1 || b.Port > 65535 {
		return inputError("-p %d: the control port must be 1..65535", b.Port)
	}
	if !b.fs.Changed("token") {
		b.Local.Token = os.Getenv(TokenEnv)
	} else if b.Local.Token == "" && os.Getenv(TokenEnv) != "" {
		return inputError("--token \"\" would turn off the token %s gives: drop --token to use it, or unset %s to run without a token", TokenEnv, TokenEnv)
	}
	if t := b.Local.Token; len(t) > 256 || strings.IndexFunc(t, func(c rune) bool { return !unicode.IsPrint(c) }) >= 0 {
		return inputError("--token: want up to 256 printable characters")
	}
	if b.maxMemory != "" {
		m, err := point.ParseMemory(b.maxMemory)
		if err != nil {
			return inputError("--max-memory: %v", err)
		}
		b.Local.MaxMemory = m
	}
	mode, err := engine.ParseClock(b.clock)
	if err != nil {
		return inputError("--clock: %v", err)
	}
	if _, err := engine.SetClock(mode); err != nil {
		return inputError("--clock: %v; use --clock auto or monotonic", err)
	}
	if err := workloads.CheckRate(b.Spec.Rate); err != nil {
		return inputError("%v", err)
	}
	if b.Local.NUMA >= 0 {
		// An explicit node is checked now, device or not (Resolve and
		// CheckServer place for the device later).
		if _, err := workloads.Place(b.Local, ""); err != nil {
			return inputError("%v", err)
		}
	}
	return nil
}

// Sizes resolves -s and -a into the sizes to run; nil: the workload's
// default (-s unset, no sweep).
func (b *Flags) Sizes() ([]int, error) {
	if !b.all {
		return nil, nil
	}
	if b.Spec.Size != 0 {
		return nil, inputError("-s and -a cannot go together: -a sweeps sizes from --sweep-min to --sweep-max")
	}
	lo, err := point.ParseSize(b.sweepMin)
	if err != nil {
		return nil, inputError("--sweep-min: %v", err)
	}
	hi, err := point.ParseSize(b.sweepMax)
	if err != nil {
		return nil, inputError("--sweep-max: %v", err)
	}
	s, err := point.SweepSizes(lo, hi)
	if err != nil {
		return nil, inputError("%v", err)
	}
	return s, nil
}

// ExplicitKeys are the handshake keys of the shared parameters set on the
// command line.
func (b *Flags) ExplicitKeys() []string {
	var keys []string
	b.fs.Visit(func(f *pflag.Flag) {
		if p, ok := point.ParamByFlag(f.Name); ok {
			keys = append(keys, p.Key)
		}
	})
	return keys
}

// RejectChanged refuses flags a command does not take.
func RejectChanged(fs *pflag.FlagSet, why string, names ...string) error {
	for _, n := range names {
		if fs.Changed(n) {
			return inputError("--%s does not apply to %s", n, why)
		}
	}
	return nil
}

// rdmaFlags are the local settings of an RDMA device: a TCP baseline has
// none to take them.
var rdmaFlags = []string{"ib-dev", "ib-port", "gid-index", "mtu", "sl", "tclass", "inline-size", "odp"}

// CheckRDMAFlags refuses an RDMA device flag when no workload named is an
// RDMA one, rather than measuring TCP as if it had applied.
func CheckRDMAFlags(fs *pflag.FlagSet, names []string) error {
	for _, n := range names {
		if w, err := catalog.Lookup(n); err != nil || w.Family == catalog.RDMA {
			return nil
		}
	}
	return RejectChanged(fs, strings.Join(names, ", ")+": a TCP baseline uses no RDMA device", rdmaFlags...)
}

// DefaultDuration makes points short (d each) unless -n or -D was given.
func (b *Flags) DefaultDuration(d time.Duration) {
	if !b.fs.Changed("iters") && !b.fs.Changed("duration") {
		b.Spec.Duration = d
	}
}

// RunSpecs are run's points of workload: one, or one a size of sizes (-a),
// each expanded over the --rate list (rateSweep).
func (b *Flags) RunSpecs(workload string, sizes []int) []point.Spec {
	spec := b.Spec
	spec.Workload = workload
	specs := b.rateSweep(spec)
	if sizes != nil {
		specs = specs[:0]
		for _, s := range sizes {
			spec.Size = s
			specs = append(specs, b.rateSweep(spec)...)
		}
	}
	return specs
}

// rateSweep expands a point over run's --rate list, or its --loaders
// list (loadedSweep): the closed loop (or,
// for bandwidth, the unlimited stream) first, the curve's reference, then
// each rate; the point alone when one rate or none was given.
func (b *Flags) rateSweep(sp point.Spec) []point.Spec {
	if b.loaders.IsList() {
		return b.loaders.Sweep(sp) // one point a level, as listed
	}
	if !b.rate.IsList() {
		return []point.Spec{sp}
	}
	ref := sp
	ref.Rate = 0
	return append([]point.Spec{ref}, b.rate.Sweep(sp)...)
}

// OneRate refuses a --rate or --loaders list where one value is meant
// (the server).
func (b *Flags) OneRate(cmd string) error {
	if b.rate.IsList() {
		return inputError("--rate %s: %s takes one rate; a list (a latency-against-load curve) is run's", b.rate, cmd)
	}
	if b.loaders.IsList() {
		return inputError("--loaders %s: %s takes one count; a list (a loaded-latency curve) is run's", b.loaders, cmd)
	}
	return nil
}

// OneSweep refuses a --rate list beside a --loaders list: a loaded
// curve is swept at one offered rate.
func (b *Flags) OneSweep() error {
	if b.rate.IsList() && b.loaders.IsList() {
		return inputError("--rate %s with --loaders %s: sweep one of them; a loaded-latency curve holds the latency loop at one rate while the loaders rise", b.rate, b.loaders)
	}
	return nil
}

// numaFlag is --numa-node: auto, off or a node number.
type numaFlag struct{ n *int }

func (f numaFlag) String() string {
	if f.n == nil {
		return "auto"
	}
	return workloads.NUMAString(*f.n)
}

func (f numaFlag) Set(v string) error {
	n, err := workloads.ParseNUMA(v)
	if err != nil {
		return err
	}
	*f.n = n
	return nil
}

func (numaFlag) Type() string { return "auto|off|N" }
