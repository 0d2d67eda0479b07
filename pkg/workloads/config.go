package workloads

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Config is what the user asked for: one point of one workload. Zero
// values mean "the default"; Normalize fills them in.
type Config struct {
	Workload   string
	Transport  string // RC, UC or UD
	Events     bool   // event-driven completions instead of busy polling
	Size       int
	Iterations int           // timed iterations (iteration mode)
	Duration   time.Duration // timed duration (duration mode)
	Warmup     int           // -1: default
	TxDepth    int
	RxDepth    int
	CQMod      int
	PostList   int
	Inline     int // -1: the device's maximum for WRITE and SEND
	QPs        int
	Threads    int
	Bidir      bool
	Imm        bool   // RDMA WRITE with immediate
	Atomic     string // fadd or cswap
	Validate   bool   // pattern payloads and check them after the run
	// RDMACM connects the QPs with rdma_cm (RC and UC).
	RDMACM bool
	// CMPort is the rdma_cm port: the exchange's port number.
	CMPort int
	// More tells a one-shot server that another run (the next size of a
	// sweep) follows this one.
	More bool

	// Local settings: not sent to the peer.
	Device   string
	IBPort   int
	GIDIndex int // -1: automatic
	MTU      int // 0: the port's active MTU
	SL       int
	TClass   int
	CPU      int // -1: no pinning
	// IdleTimeout bounds how long a loop waits without progress.
	IdleTimeout time.Duration
	// ReportInterval, when positive, prints the interval's and the
	// cumulative figures of the first worker to Progress at that period.
	ReportInterval time.Duration
	Progress       io.Writer
}

// Defaults returns a Config with every default filled in and no workload.
func Defaults() Config {
	return Config{Transport: "RC", Warmup: -1, Inline: -1, QPs: 1, Threads: 1, IBPort: 1,
		GIDIndex: -1, CPU: -1, PostList: 1, IdleTimeout: 10 * time.Second}
}

// Queue depths and moderation. The bandwidth ones are perftest's
// (DEF_TX_BW 128, DEF_RX_SEND 512, DEF_CQ_MOD 100). For latency perftest
// uses a send queue of 1 and signals every operation; rdma-bench gives the
// write and send ping-pongs a deeper queue and signals one in 32, so the
// sender reaps a completion only every 32 iterations (READ and atomic
// latency still signal every operation: -Q 1). A send queue of 1 or 64
// made no measurable difference to read_lat on soft-RoCE.
const (
	defaultLatTxDepth = 64
	defaultLatCQMod   = 32
	defaultBwTxDepth  = 128
	defaultRxDepth    = 512
	defaultBwCQMod    = 100
	defaultLatIters   = 1000
	defaultBwIters    = 5000
	maxWarmupDefault  = 100
)

// Normalize validates what needs no device and fills in defaults. It
// returns the workload.
func (c *Config) Normalize() (Workload, error) {
	w, err := Lookup(c.Workload)
	if err != nil {
		return w, err
	}
	c.Transport = strings.ToUpper(c.Transport)
	if c.Transport == "" {
		c.Transport = "RC"
	}
	if !w.Supports(c.Transport) {
		return w, fmt.Errorf("%s cannot run over %s: %s supports %s", w.Name, c.Transport, w.Name, strings.Join(w.Transports, ", "))
	}
	if w.Op == OpAtomic {
		if c.Size == 0 {
			c.Size = 8
		}
		if c.Size != 8 {
			return w, fmt.Errorf("size %d: atomic operations move exactly 8 bytes", c.Size)
		}
		switch c.Atomic {
		case "":
			c.Atomic = "fadd"
		case "fadd", "cswap":
		default:
			return w, fmt.Errorf("--atomic %q: choose fadd or cswap", c.Atomic)
		}
	} else if c.Atomic != "" {
		return w, fmt.Errorf("--atomic applies to atomic_lat and atomic_bw, not %s", w.Name)
	}
	if c.Size == 0 {
		c.Size = 2
		if !w.Latency() {
			c.Size = 65536
		}
	}
	if c.Size < 0 {
		return w, fmt.Errorf("size %d: must be at least 1 byte", c.Size)
	}
	if c.Iterations != 0 && c.Duration != 0 {
		return w, errors.New("-n (iterations) and -D (duration) cannot go together: choose one")
	}
	if c.Iterations < 0 {
		return w, fmt.Errorf("iterations %d: must be positive", c.Iterations)
	}
	if c.Duration < 0 {
		return w, fmt.Errorf("duration %v: must be positive", c.Duration)
	}
	if c.Iterations == 0 && c.Duration == 0 {
		c.Iterations = defaultLatIters
		if !w.Latency() {
			c.Iterations = defaultBwIters
		}
	}
	if c.Warmup < 0 {
		c.Warmup = maxWarmupDefault
		if c.Iterations > 0 {
			c.Warmup = min(maxWarmupDefault, max(1, c.Iterations/10))
		}
	}
	if c.Bidir && (w.Latency() || w.Op == OpAtomic) {
		return w, fmt.Errorf("--bidir applies to write_bw, read_bw and send_bw, not %s", w.Name)
	}
	if c.Imm && w.Op != OpWrite {
		return w, fmt.Errorf("--imm (write with immediate) applies to write workloads, not %s", w.Name)
	}
	if c.Imm && c.Transport == "UD" {
		return w, errors.New("--imm needs RC or UC")
	}
	if w.Latency() {
		if c.QPs > 1 || c.Threads > 1 || c.PostList > 1 {
			return w, fmt.Errorf("%s measures one operation at a time: -q, --threads and -l must be 1", w.Name)
		}
	}
	if c.QPs < 1 || c.QPs > 1024 {
		return w, fmt.Errorf("-q %d: queue pairs must be 1..1024", c.QPs)
	}
	if c.Threads < 1 || c.Threads > 256 {
		return w, fmt.Errorf("--threads %d: must be 1..256", c.Threads)
	}
	if c.TxDepth == 0 {
		c.TxDepth = defaultBwTxDepth
		if w.Latency() {
			c.TxDepth = defaultLatTxDepth
		}
	}
	if c.RxDepth == 0 {
		c.RxDepth = defaultRxDepth
		if w.Latency() {
			c.RxDepth = 16
		}
	}
	if c.TxDepth < 1 || c.RxDepth < 1 {
		return w, fmt.Errorf("-t %d, -r %d: queue depths must be positive", c.TxDepth, c.RxDepth)
	}
	roundTrip := w.Latency() && (w.Op == OpRead || w.Op == OpAtomic)
	if roundTrip && c.CQMod > 1 {
		return w, fmt.Errorf("-Q %d: %s times each operation to its own completion, so every one is signalled: -Q must be 1", c.CQMod, w.Name)
	}
	if c.CQMod == 0 {
		switch {
		case roundTrip:
			c.CQMod = 1
		case w.Latency():
			c.CQMod = min(defaultLatCQMod, c.TxDepth)
		default:
			c.CQMod = min(defaultBwCQMod, c.TxDepth)
		}
	}
	if c.CQMod < 1 || c.CQMod > c.TxDepth {
		return w, fmt.Errorf("-Q %d: cq moderation must be 1..tx-depth (%d)", c.CQMod, c.TxDepth)
	}
	if c.PostList < 1 || c.PostList > c.TxDepth {
		return w, fmt.Errorf("-l %d: post list must be 1..tx-depth (%d)", c.PostList, c.TxDepth)
	}
	if c.Inline < -1 {
		return w, fmt.Errorf("-I %d: inline size must be 0 or more", c.Inline)
	}
	if c.Inline > 0 && (w.Op == OpRead || w.Op == OpAtomic) {
		return w, fmt.Errorf("-I: %s cannot carry inline data", w.Op)
	}
	if c.MTU != 0 && !validMTU(c.MTU) {
		return w, fmt.Errorf("--mtu %d: choose 256, 512, 1024, 2048 or 4096", c.MTU)
	}
	if c.Transport == "UD" && c.MTU != 0 && c.Size > c.MTU {
		return w, fmt.Errorf("size %d: a UD message must fit in one MTU (%d)", c.Size, c.MTU)
	}
	if c.RDMACM && c.Transport == "UD" {
		return w, errors.New("--rdma-cm connects RC and UC queue pairs: UD needs no connection")
	}
	if c.SL < 0 || c.SL > 15 {
		return w, fmt.Errorf("--sl %d: service level must be 0..15", c.SL)
	}
	if c.TClass < 0 || c.TClass > 255 {
		return w, fmt.Errorf("--tclass %d: traffic class must be 0..255", c.TClass)
	}
	if c.GIDIndex < -1 {
		return w, fmt.Errorf("-x %d: gid index must be 0 or more", c.GIDIndex)
	}
	if c.IBPort < 1 || c.IBPort > 255 {
		return w, fmt.Errorf("-i %d: device port must be 1..255", c.IBPort)
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 10 * time.Second
	}
	return w, nil
}

func validMTU(m int) bool { return m == 256 || m == 512 || m == 1024 || m == 2048 || m == 4096 }

// DeviceLimits are what the device allows, for the checks that need it.
type DeviceLimits struct {
	Name      string
	MaxQPWR   int
	MaxCQE    int
	MaxMRSize uint64
	MaxInline int
	ActiveMTU int
	MaxRdAtom int
	Atomics   bool
}

// CheckDevice rejects what this device cannot do, before any queue pair
// is created.
func (c *Config) CheckDevice(w Workload, d DeviceLimits) error {
	if uint64(c.Size) > d.MaxMRSize {
		return fmt.Errorf("size %d: above %s's max_mr_size %d", c.Size, d.Name, d.MaxMRSize)
	}
	if c.TxDepth > d.MaxQPWR {
		return fmt.Errorf("-t %d: above %s's max_qp_wr %d", c.TxDepth, d.Name, d.MaxQPWR)
	}
	if c.RxDepth > d.MaxQPWR {
		return fmt.Errorf("-r %d: above %s's max_qp_wr %d", c.RxDepth, d.Name, d.MaxQPWR)
	}
	if cqe := c.cqEntries(); cqe > d.MaxCQE {
		return fmt.Errorf("-q %d with -t %d and -r %d needs %d cq entries per thread: above %s's max_cqe %d",
			c.QPs, c.TxDepth, c.RxDepth, cqe, d.Name, d.MaxCQE)
	}
	if c.Inline > d.MaxInline {
		return fmt.Errorf("-I %d: above %s's maximum inline size %d", c.Inline, d.Name, d.MaxInline)
	}
	mtu := c.pathMTU(d.ActiveMTU)
	if c.MTU > d.ActiveMTU {
		return fmt.Errorf("--mtu %d: above the port's active MTU %d", c.MTU, d.ActiveMTU)
	}
	if c.Transport == "UD" && c.Size > mtu {
		return fmt.Errorf("size %d: a UD message must fit in one MTU (%d)", c.Size, mtu)
	}
	if w.Op == OpAtomic && !d.Atomics {
		return fmt.Errorf("%s does not support atomic operations (atomic_cap none)", d.Name)
	}
	return nil
}

// pathMTU is the MTU the QPs use: --mtu or the port's active MTU.
func (c *Config) pathMTU(active int) int {
	if c.MTU != 0 {
		return c.MTU
	}
	return active
}

// qpsPerThread spreads the QPs over the threads, at least one each.
func (c *Config) qpsPerThread() int { return max(1, (c.QPs+c.Threads-1)/c.Threads) }

func (c *Config) cqEntries() int { return c.qpsPerThread() * (c.TxDepth + c.RxDepth) }

// Completion names the completion mode as results report it.
func (c *Config) Completion() string {
	if c.Events {
		return "event"
	}
	return "poll"
}

// peerParams are the parameters both sides must agree on, as sent in the
// handshake.
func (c *Config) peerParams() map[string]string {
	b := strconv.FormatBool
	return map[string]string{
		"workload": c.Workload, "transport": c.Transport, "completion": c.Completion(),
		"size": strconv.Itoa(c.Size), "iterations": strconv.Itoa(c.Iterations),
		"duration": c.Duration.String(), "warmup": strconv.Itoa(c.Warmup),
		"tx_depth": strconv.Itoa(c.TxDepth), "rx_depth": strconv.Itoa(c.RxDepth),
		"cq_mod": strconv.Itoa(c.CQMod), "post_list": strconv.Itoa(c.PostList),
		"qps": strconv.Itoa(c.QPs), "threads": strconv.Itoa(c.Threads),
		"bidir": b(c.Bidir), "imm": b(c.Imm), "atomic": c.Atomic, "validate": b(c.Validate),
		"more": b(c.More), "rdma_cm": b(c.RDMACM),
	}
}

// ParamsOf returns the shared parameters named by keys (the flags set on
// a server's command line), in the handshake's form, for Server.Explicit.
// Keys that are not shared parameters are ignored.
func (c *Config) ParamsOf(keys []string) map[string]string {
	all := c.peerParams()
	out := map[string]string{}
	for _, k := range keys {
		if v, ok := all[k]; ok && k != "more" {
			out[k] = v
		}
	}
	return out
}

// applyPeerParams sets c's shared parameters from a client's handshake.
func (c *Config) applyPeerParams(p map[string]string) error {
	var err error
	atoi := func(key string) int {
		v, e := strconv.Atoi(p[key])
		if e != nil && err == nil {
			err = fmt.Errorf("peer parameter %s=%q is not a number", key, p[key])
		}
		return v
	}
	boolean := func(key string) bool {
		v, e := strconv.ParseBool(p[key])
		if e != nil && err == nil {
			err = fmt.Errorf("peer parameter %s=%q is not true or false", key, p[key])
		}
		return v
	}
	c.Workload, c.Transport, c.Atomic = p["workload"], p["transport"], p["atomic"]
	c.Events = p["completion"] == "event"
	c.Size, c.Iterations, c.Warmup = atoi("size"), atoi("iterations"), atoi("warmup")
	c.TxDepth, c.RxDepth, c.CQMod, c.PostList = atoi("tx_depth"), atoi("rx_depth"), atoi("cq_mod"), atoi("post_list")
	c.QPs, c.Threads = atoi("qps"), atoi("threads")
	c.Bidir, c.Imm, c.Validate = boolean("bidir"), boolean("imm"), boolean("validate")
	c.More = p["more"] == "true"
	c.RDMACM = p["rdma_cm"] == "true"
	if d, e := time.ParseDuration(p["duration"]); e == nil {
		c.Duration = d
	} else if err == nil {
		err = fmt.Errorf("peer parameter duration=%q is not a duration", p["duration"])
	}
	return err
}
