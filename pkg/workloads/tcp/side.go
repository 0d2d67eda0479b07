package tcp

import (
	"fmt"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// latChunk is how many latency samples one call of the socket loop
// records before Go takes them: into the iteration mode's samples, or
// folded into the duration mode's histogram.
const latChunk = 4096

// phaseTimed names the barrier between warm-up and the timed phase.
const phaseTimed = "timed"

// side is what both ends of a run share: the data socket (whose loop holds
// the message buffers), the control connection, and the timed phase's
// figures on this side's own clock.
type side struct {
	cfg  Config
	s    *sock
	ctrl *exchange.Conn
	ack  [8]byte // tcp_bw: the server's count of bytes received

	cpu0, cpu1 report.CPUSample
	timed      bool   // the timed phase began (cpu0 and start are set)
	ended      bool   // cpu1 is set
	done       uint64 // timed iterations (tcp_lat) or messages (tcp_bw)
	start, end int64  // the timed phase, from now
}

func newSide(cfg Config, s *sock, ctrl *exchange.Conn) side {
	return side{cfg: cfg, s: s, ctrl: ctrl}
}

// prepare readies the socket's loop for the workload's messages.
func (s *side) prepare() error {
	if err := s.s.prepare(s.cfg.Size, latChunk); err != nil {
		return fmt.Errorf("preparing the data connection: %w", err)
	}
	return nil
}

// client is the measuring side: it sends, and times.
type client struct {
	side
	// tcp_lat: the half round trips, kept (iteration mode) or folded
	// into a histogram (duration mode).
	samples []int64
	rec     *report.LatencyRecorder
	// received is the byte count the server acknowledged (tcp_bw).
	received uint64
}

func newClient(cfg Config, s *sock, ctrl *exchange.Conn) *client {
	c := &client{side: newSide(cfg, s, ctrl)}
	if cfg.Workload == Lat {
		if cfg.Iterations > 0 {
			c.samples = make([]int64, 0, cfg.Iterations)
		} else {
			c.rec = report.NewLatencyRecorder()
		}
	}
	return c
}

func (c *client) measure() error {
	if err := c.prepare(); err != nil {
		return err
	}
	msg := c.s.loop.Message()
	for i := range msg {
		msg[i] = byte(i)
	}
	if c.cfg.Workload == Lat {
		return c.lat()
	}
	return c.bw()
}

// beginTimed makes the program's pages resident (verbs.PrefaultMappings),
// meets the server after warm-up, then samples the CPU and starts the
// clock. The server samples before the barrier, so neither sample delays
// the first timed message.
func (c *client) beginTimed() error {
	verbs.PrefaultMappings()
	if err := c.ctrl.Barrier(phaseTimed); err != nil {
		return err
	}
	var err error
	if c.cpu0, err = report.SampleCPU(); err != nil {
		return err
	}
	c.start, c.timed = now(), true
	return nil
}

// bounds is the timed run's extent for a loop call: the iteration count
// and no deadline, or open-ended until the deadline (duration mode).
func (c *client) bounds() (n uint64, deadlineNS int64) {
	if c.cfg.Iterations > 0 {
		return uint64(c.cfg.Iterations), 0
	}
	return verbs.Forever, c.start + int64(c.cfg.Duration)
}

// left is what a loop call may still do of n after done: the rest of the
// count, or Forever.
func left(n, done uint64) uint64 {
	if n == verbs.Forever {
		return n
	}
	return n - done
}

// endTimed samples the CPU at the end of the timed phase (or when it is
// cut short), once.
func (s *side) endTimed() error {
	if !s.timed || s.ended {
		return nil
	}
	var err error
	s.cpu1, err = report.SampleCPU()
	s.ended = err == nil
	return err
}

// server is the answering side: it echoes (tcp_lat) or sinks (tcp_bw)
// and reports what it saw.
type server struct {
	side
	bytes  uint64 // timed payload received
	hooked bool   // a test hook is set
}

func newServer(cfg Config, s *sock, ctrl *exchange.Conn) *server {
	return &server{side: newSide(cfg, s, ctrl), hooked: cfg.failAfter > 0 || cfg.silentAfter > 0}
}

func (v *server) measure() error {
	if err := v.prepare(); err != nil {
		return err
	}
	if v.cfg.Workload == Lat {
		return v.lat()
	}
	return v.bw()
}

// beginTimed samples the CPU, then meets the client: see client.beginTimed.
func (v *server) beginTimed() error {
	verbs.PrefaultMappings()
	var err error
	if v.cpu0, err = report.SampleCPU(); err != nil {
		return err
	}
	if err := v.ctrl.Barrier(phaseTimed); err != nil {
		return err
	}
	v.start, v.timed = now(), true
	return nil
}

// testHook plays a failing server in tests: it closes the data socket
// after failAfter timed messages, or stops answering after silentAfter
// until the client gives up (the socket is aborted) or 100 idle timeouts
// pass.
func (v *server) testHook() error {
	n := int(v.done)
	if v.cfg.Workload == Bw {
		n = int(v.bytes / uint64(v.cfg.Size))
	}
	if v.cfg.failAfter > 0 && n >= v.cfg.failAfter {
		v.s.close()
		return fmt.Errorf("test: closed the data connection after %d messages", n)
	}
	if v.cfg.silentAfter > 0 && n >= v.cfg.silentAfter {
		for t := time.Now(); time.Since(t) < 100*v.cfg.IdleTimeout && !v.s.aborted.Load(); {
			time.Sleep(10 * time.Millisecond)
		}
		return fmt.Errorf("test: stopped answering after %d messages", n)
	}
	return nil
}

// serverReport is what the server sends back in its exchange Result.
type serverReport struct {
	// CPU is the server's usage over its timed phase.
	CPU report.CPUUsage `json:"cpu"`
	// Ops is the timed iterations answered (tcp_lat) or messages
	// received (tcp_bw, bytes / size).
	Ops uint64 `json:"ops"`
	// Bytes is the timed payload moved: both directions for tcp_lat, as
	// received for tcp_bw.
	Bytes uint64 `json:"bytes"`
	// ElapsedNS is, on the server's clock, the timed phase (tcp_lat) or
	// the first timed byte received to the last (tcp_bw).
	ElapsedNS int64 `json:"elapsed_ns"`
}

func (v *server) report() serverReport {
	r := serverReport{Ops: v.done, Bytes: v.bytes, ElapsedNS: v.end - v.start}
	if v.ended {
		r.CPU = v.cpu1.Since(v.cpu0)
	}
	return r
}
