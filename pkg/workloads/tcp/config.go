package tcp

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// Workload names.
const (
	Lat = "tcp_lat"
	Bw  = "tcp_bw"
)

// Completion modes as results report them (report.Params.Completion).
const (
	// CompletionBlock: blocking recv/send; the thread sleeps in the kernel
	// until data arrives, the analogue of RDMA's "event" mode.
	CompletionBlock = "block"
	// CompletionBusy: non-blocking recv/send (MSG_DONTWAIT) spun on in the
	// same thread, the analogue of RDMA's "poll" mode.
	CompletionBusy = "busy"
)

// Defaults chosen by Normalize.
const (
	defaultLatSize  = 2
	defaultBwSize   = 65536
	defaultLatIters = 1000
	// defaultBwIters moves 3.3 GB: about a second on loopback.
	defaultBwIters   = 50000
	maxWarmupDefault = 100
	defaultIdle      = 10 * time.Second
	maxSize          = 1 << 30
)

// Config is one TCP measurement. Build it with Defaults: in the zero value,
// CPU 0 means "pin to CPU 0" and Warmup 0 means no warm-up.
type Config struct {
	// Workload is Lat or Bw.
	Workload string
	// Size is the message size in bytes; 0 picks the workload's default.
	Size int
	// Iterations is the number of timed iterations (iteration mode).
	Iterations int
	// Duration is the timed duration (duration mode); exclusive with
	// Iterations. With neither, Iterations gets the workload's default.
	Duration time.Duration
	// Warmup is the number of untimed iterations first; -1: the default,
	// 10% of Iterations, at least 1 and at most 100 (100 in duration mode).
	Warmup int
	// BusyPoll spins on non-blocking calls instead of blocking.
	BusyPoll bool

	// Local settings, not sent to the peer.

	// CPU pins the measuring thread to this CPU; -1: no pinning.
	CPU int
	// IdleTimeout bounds every wait for the peer (data and control).
	IdleTimeout time.Duration
	// DataPort is the server's data connection port; 0 picks a free one.
	DataPort int
	// ReportInterval, when positive, makes the client print the
	// interval's and the cumulative figures to Progress at that period.
	ReportInterval time.Duration
	Progress       io.Writer
	// Logf, when set, receives the outcome of every client a persistent
	// server serves.
	Logf func(format string, args ...any)

	// failAfter, when positive, makes the server close its data socket
	// after that many timed messages (tests).
	failAfter int
	// silentAfter, when positive, makes the server stop answering after
	// that many timed messages (tests).
	silentAfter int
}

// Defaults returns a Config with every default filled in and no workload.
func Defaults() Config {
	return Config{Warmup: -1, CPU: -1, IdleTimeout: defaultIdle}
}

// Normalize validates c and fills in defaults.
func (c *Config) Normalize() error {
	if err := c.normalizeShared(); err != nil {
		return err
	}
	return c.normalizeLocal()
}

// normalizeShared checks the parameters both sides agree on.
func (c *Config) normalizeShared() error {
	switch c.Workload {
	case Lat, Bw:
	default:
		return fmt.Errorf("unknown workload %q: choose %s or %s", c.Workload, Lat, Bw)
	}
	if c.Size == 0 {
		c.Size = defaultLatSize
		if c.Workload == Bw {
			c.Size = defaultBwSize
		}
	}
	if c.Size < 1 || c.Size > maxSize {
		return fmt.Errorf("size %d: must be 1 byte to 1 GiB", c.Size)
	}
	if c.Iterations != 0 && c.Duration != 0 {
		return errors.New("-n (iterations) and -D (duration) cannot go together: choose one")
	}
	if c.Iterations < 0 {
		return fmt.Errorf("iterations %d: must be positive", c.Iterations)
	}
	if c.Duration < 0 {
		return fmt.Errorf("duration %v: must be positive", c.Duration)
	}
	if c.Iterations == 0 && c.Duration == 0 {
		c.Iterations = defaultLatIters
		if c.Workload == Bw {
			c.Iterations = defaultBwIters
		}
	}
	if c.Warmup < -1 {
		return fmt.Errorf("warmup %d: must be 0 or more (-1 for the default)", c.Warmup)
	}
	if c.Warmup == -1 {
		c.Warmup = maxWarmupDefault
		if c.Iterations > 0 {
			c.Warmup = min(maxWarmupDefault, max(1, c.Iterations/10))
		}
	}
	return nil
}

// normalizeLocal checks the local settings.
func (c *Config) normalizeLocal() error {
	if c.IdleTimeout < 0 {
		return fmt.Errorf("idle timeout %v: must be positive", c.IdleTimeout)
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = defaultIdle
	}
	if c.DataPort < 0 || c.DataPort > 65535 {
		return fmt.Errorf("data port %d: must be 0..65535", c.DataPort)
	}
	return checkCPU(c.CPU)
}

// checkCPU accepts -1 or a CPU the process may run on.
func checkCPU(cpu int) error {
	if cpu == -1 {
		return nil
	}
	if cpu < 0 {
		return fmt.Errorf("cpu %d: must be -1 (no pinning) or a CPU number", cpu)
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return fmt.Errorf("cpu %d: reading the allowed cpus: %w", cpu, err)
	}
	if !set.IsSet(cpu) {
		return fmt.Errorf("cpu %d: not among the %d cpus this process may use", cpu, set.Count())
	}
	return nil
}

// Completion returns CompletionBusy or CompletionBlock.
func (c *Config) Completion() string {
	if c.BusyPoll {
		return CompletionBusy
	}
	return CompletionBlock
}

// HandshakeParams returns the parameters both sides must agree on, keyed
// as in the handshake: workload, transport, completion, size, iterations,
// duration and warmup. A server passes the subset its user set explicitly
// to Serve.
func (c *Config) HandshakeParams() map[string]string {
	return map[string]string{
		"workload": c.Workload, "transport": "TCP", "completion": c.Completion(),
		"size": strconv.Itoa(c.Size), "iterations": strconv.Itoa(c.Iterations),
		"duration": c.Duration.String(), "warmup": strconv.Itoa(c.Warmup),
	}
}

// applyPeerParams sets c's shared parameters from a client's handshake.
func (c *Config) applyPeerParams(p map[string]string) error {
	if p["transport"] != "TCP" {
		return fmt.Errorf("client asked for transport %q, this server runs TCP workloads", p["transport"])
	}
	switch p["completion"] {
	case CompletionBlock, CompletionBusy:
	default:
		return fmt.Errorf("client asked for completion %q: want %s or %s", p["completion"], CompletionBlock, CompletionBusy)
	}
	var err error
	atoi := func(key string) int {
		v, e := strconv.Atoi(p[key])
		if e != nil && err == nil {
			err = fmt.Errorf("client parameter %s=%q is not a number", key, p[key])
		}
		return v
	}
	c.Workload = p["workload"]
	c.BusyPoll = p["completion"] == CompletionBusy
	c.Size, c.Iterations, c.Warmup = atoi("size"), atoi("iterations"), atoi("warmup")
	if err != nil {
		return err
	}
	d, e := time.ParseDuration(p["duration"])
	if e != nil {
		return fmt.Errorf("client parameter duration=%q is not a duration", p["duration"])
	}
	c.Duration = d
	// The client normalized these: an unset value is a malformed request,
	// not a request for a default.
	if c.Size == 0 || (c.Iterations == 0) == (c.Duration == 0) || c.Warmup < 0 {
		return fmt.Errorf("client parameters size=%s iterations=%s duration=%s warmup=%s are incomplete",
			p["size"], p["iterations"], p["duration"], p["warmup"])
	}
	return c.Normalize()
}
