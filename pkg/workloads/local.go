package workloads

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/point"
)

// Local are one side's own settings, never sent to the peer: which device
// and port, how to address it, where the threads run, how long to wait.
type Local struct {
	Device   string // RDMA device; "" for the first
	IBPort   int    // device port, from 1
	GIDIndex int    // -1: the RoCE v2 IPv4 GID, else the first
	MTU      int    // path MTU; 0: the port's active MTU
	SL       int    // service level
	TClass   int    // traffic class
	Inline   int    // largest inline message; -1: the device's maximum for WRITE and SEND
	// CPU pins measuring thread i to CPU+i (a loopback server's threads
	// follow the client's); -1 leaves them to the scheduler.
	CPU int
	// NUMA is --numa-node: NUMAAuto (the device's node), NUMAOff or a
	// node (0 is node 0: DefaultLocal sets NUMAAuto); Placement is what it
	// resolved to (Place), nil before: nothing is placed without it.
	NUMA      int
	Placement *Placement
	// IdleTimeout bounds every wait for the peer.
	IdleTimeout time.Duration
	// ReportInterval, when positive, prints live figures to Progress, and
	// hands them to Intervals too when it is set (-o ndjson; its Run is
	// the caller's to fill).
	ReportInterval time.Duration
	Progress       io.Writer
	Intervals      func(*document.StreamInterval)
	// DataPort is the TCP baseline's data listener port; 0: a free one.
	DataPort int
	// MaxMemory bounds what one run may allocate on this side, in bytes;
	// 0: half of the host's memory (see CheckMemory).
	MaxMemory uint64
	// memoryShare, set by Share, says that MaxMemory is a share of the
	// bound for runs served at once, and of which.
	memoryShare string
	// Token is the shared secret a server requires of its clients, and a
	// client sends; "" for none.
	Token string
	// Counters reads the RDMA port's counters around every run.
	Counters bool
	// KeepSamples keeps every latency sample in duration mode too, beside
	// the histogram (for --samples): 8 bytes a sample, in memory.
	KeepSamples bool
	// ODP asks for memory registered for on-demand paging (--odp): refused,
	// naming what the device lacks, or as untested (see checkODP).
	ODP bool

	// loopback: both sides run in this process, on one port (Loopback);
	// loopbackServer marks the server side of such a pair.
	loopback, loopbackServer bool
	// hold is a held loopback run's wait at each stage (WithHold); nil
	// for a run that is not held.
	hold func(stage string) error
}

// Bounds of the local settings.
const (
	DefaultIdleTimeout = 10 * time.Second
	// MinIdleTimeout is the shortest idle timeout: the sides show each
	// other signs of life four times per idle timeout.
	MinIdleTimeout = 100 * time.Millisecond
	// MinReportInterval is the shortest live-figure period: printing a
	// line takes a good part of a millisecond under emulation.
	MinReportInterval = 10 * time.Millisecond
)

// DefaultLocal returns the local settings with every default.
func DefaultLocal() Local {
	return Local{IBPort: 1, GIDIndex: -1, Inline: -1, CPU: -1, NUMA: NUMAAuto, IdleTimeout: DefaultIdleTimeout, Counters: true}
}

// Check validates the settings that need no device; the error names the
// flag and what is allowed.
func (l Local) Check() error {
	switch {
	case l.IBPort < 1 || l.IBPort > 255:
		return fmt.Errorf("-i %d: device port must be 1..255", l.IBPort)
	case l.GIDIndex < -1:
		return fmt.Errorf("-x %d: gid index must be 0 or more", l.GIDIndex)
	case l.MTU != 0 && !validMTU(l.MTU):
		return fmt.Errorf("--mtu %d: choose 256, 512, 1024, 2048 or 4096", l.MTU)
	case l.SL < 0 || l.SL > 15:
		return fmt.Errorf("--sl %d: service level must be 0..15", l.SL)
	case l.TClass < 0 || l.TClass > 255:
		return fmt.Errorf("--tclass %d: traffic class must be 0..255", l.TClass)
	case l.Inline < -1:
		return fmt.Errorf("-I %d: inline size must be 0 or more", l.Inline)
	case l.CPU < -1:
		return fmt.Errorf("--cpu %d: want a CPU number (0 or more)", l.CPU)
	case l.IdleTimeout < MinIdleTimeout:
		return fmt.Errorf("--idle-timeout %v: must be at least %v, such as 10s", l.IdleTimeout, MinIdleTimeout)
	case l.ReportInterval < 0 || (l.ReportInterval > 0 && l.ReportInterval < MinReportInterval):
		return fmt.Errorf("--report-interval %v: must be at least %v (or 0 for none)", l.ReportInterval, MinReportInterval)
	case l.DataPort < 0 || l.DataPort > 65535:
		return fmt.Errorf("data port %d: must be 0..65535", l.DataPort)
	}
	return nil
}

func validMTU(m int) bool { return m == 256 || m == 512 || m == 1024 || m == 2048 || m == 4096 }

// CheckCPUs checks that the n CPUs from l.CPU on are all ones this process
// may run on (nothing to check without pinning).
func (l Local) CheckCPUs(n int) error {
	if l.CPU < 0 {
		return nil
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return fmt.Errorf("--cpu %d: reading the allowed cpus: %w", l.CPU, err)
	}
	for c := l.CPU; c < l.CPU+n; c++ {
		if !set.IsSet(c) {
			what := fmt.Sprintf("cpu %d", c)
			if n > 1 {
				what = fmt.Sprintf("cpus %d..%d (one per measuring thread)", l.CPU, l.CPU+n-1)
			}
			return fmt.Errorf("--cpu %d: %s not among the %d cpus this process may use", l.CPU, what, set.Count())
		}
	}
	return nil
}

// pathMTU is the MTU the QPs use: --mtu or the port's active MTU.
func (l Local) pathMTU(active int) int {
	if l.MTU != 0 {
		return l.MTU
	}
	return active
}

// CheckDevice rejects what this device cannot do, before any queue pair
// is created.
func CheckDevice(s point.Resolved, l Local, w catalog.Workload, d DeviceLimits) error {
	if uint64(s.Size) > d.MaxMRSize {
		return fmt.Errorf("size %d: above %s's max_mr_size %d", s.Size, d.Name, d.MaxMRSize)
	}
	if s.TxDepth > d.MaxQPWR {
		return fmt.Errorf("-t %d: above %s's max_qp_wr %d", s.TxDepth, d.Name, d.MaxQPWR)
	}
	if s.RxDepth > d.MaxQPWR {
		return fmt.Errorf("-r %d: above %s's max_qp_wr %d", s.RxDepth, d.Name, d.MaxQPWR)
	}
	if cqe := s.CQEntries(); cqe > d.MaxCQE {
		return fmt.Errorf("-q %d with -t %d and -r %d needs %d cq entries per thread: above %s's max_cqe %d",
			s.QPs, s.TxDepth, s.RxDepth, cqe, d.Name, d.MaxCQE)
	}
	if l.Inline > d.MaxInline {
		return fmt.Errorf("-I %d: above %s's maximum inline size %d for %s", l.Inline, d.Name, d.MaxInline, s.Transport)
	}
	if l.Inline > 0 && (w.Op == catalog.OpRead || w.Op == catalog.OpAtomic) {
		return fmt.Errorf("-I %d: %s carries no payload inline", l.Inline, w.Name)
	}
	if l.MTU > d.ActiveMTU {
		return fmt.Errorf("--mtu %d: above the port's active MTU %d", l.MTU, d.ActiveMTU)
	}
	if mtu := l.pathMTU(d.ActiveMTU); s.Transport == "UD" && s.Size > mtu {
		return fmt.Errorf("size %d: a UD message must fit in one MTU (%d)", s.Size, mtu)
	}
	if s.PostAPI == "ex" && s.RDMACM {
		return fmt.Errorf("--post-api ex: rdma_cm (-R) creates queue pairs for ibv_post_send only: use --post-api classic")
	}
	if s.PostAPI == "ex" && !d.PostEx {
		return fmt.Errorf("--post-api ex: %s cannot create queue pairs for the extended post API for %s (ibv_create_qp_ex with send_ops_flags): use --post-api classic", d.Name, w.Name)
	}
	if w.Op == catalog.OpAtomic && !d.Atomics {
		return fmt.Errorf("%s does not support atomic operations (atomic_cap none)", d.Name)
	}
	if l.ODP {
		return checkODP(s, w, d)
	}
	return nil
}

var errInterrupted = errors.New("interrupted")

// interrupted says so of an error that an interruption (ctx cancelled by
// Ctrl-C, SIGTERM or SIGHUP) caused wherever the run was, set-up
// included ("connect: operation was canceled" means nothing to a user),
// keeping what failed.
func interrupted(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil || errors.Is(err, errInterrupted) {
		return err
	}
	return fmt.Errorf("%w: %w (the run stopped at: %v)", errInterrupted, context.Cause(ctx), err)
}
