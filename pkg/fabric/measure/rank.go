//go:build cgo

package measure

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

// Setup is what a rank is made of beside its Config.
type Setup struct {
	World fabric.World
	// Specs are the points, one per workload, resolved and checked
	// against Device (nil when every workload is TCP).
	Specs  []point.Resolved
	Device *report.Device
	Local  workloads.Local
	// Port is the measurement listener's TCP port; 0 for a free one.
	Port int
	// Params and Version are what every rank must share (Config.Params,
	// the build's version).
	Params  map[string]string
	Version string
	// NewDocument starts a pair's report document.
	NewDocument func() *report.Document
	// Log takes the rendezvous' and (rank 0) the sweep's progress.
	Log io.Writer
}

// Rank is one process of a fabric run: its points, checked against its
// device, its measurement listener, and what it registers.
type Rank struct {
	cfg  *Config
	s    Setup
	lns  []*exchange.Listener // Member.Addr's first
	self fabric.Member
	host string // the host or address the others dial
	// prepared closes once this process's mappings are prefaulted
	// (workloads.Prepare): that runs beside the rendezvous, so that a
	// rank that cannot join fails within its timeout, not after seconds
	// of paging in a binary from a slow disk (or an emulator's 9p).
	prepared chan struct{}
}

// NewRank reads the device's GID, opens the measurement listeners (one,
// or one per pair an incast receiver serves: fabric.ListenersFor) and
// describes this rank for the rendezvous. A device that cannot be
// opened gives pkg/verbs' error as is; a listener that cannot open is a
// bad input (package inputerr), but for a port in use.
func NewRank(cfg *Config, s Setup) (*Rank, error) {
	r := &Rank{cfg: cfg, s: s, host: cfg.Advertise}
	hostname, err := os.Hostname()
	if err != nil {
		return nil, fmt.Errorf("this host's name: %w", err)
	}
	r.self = fabric.Member{Hostname: hostname, Version: s.Version, Params: s.Params}
	if d := s.Device; d != nil {
		gid, err := DeviceGID(d)
		if err != nil {
			return nil, err
		}
		r.self.Device, r.self.Port, r.self.MTUBytes, r.self.GID = d.Name, d.Port, d.MTU, gid.String()
		r.self.DeviceWhy = d.Chosen
		if ip, ok := gid.IPv4(); ok && r.host == "" {
			r.host = ip // RoCE v2: the address on the fabric measured
		}
	}
	if r.host == "" {
		r.host = hostname
	}
	r.prepared = make(chan struct{})
	go func() { // the device's provider library is mapped by now
		defer close(r.prepared)
		workloads.Prepare()
	}()
	ln, err := exchange.Listen("", s.Port)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("measurement listener: %w (one rank per host with -p, or leave -p out for a free port)", err)
		}
		return nil, inputerr.Wrap(fmt.Errorf("measurement listener: %w", err))
	}
	r.lns = []*exchange.Listener{ln}
	r.self.Addr = net.JoinHostPort(r.host, strconv.Itoa(ln.Port()))
	if err := r.listenMore(fabric.ListenersFor(cfg.Pattern, s.World.Size)); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// listenMore opens listeners on free ports until the rank has n, for an
// incast receiver's pairs, and lists them all in r.self.Listeners.
func (r *Rank) listenMore(n int) error {
	if n <= 1 {
		return nil
	}
	r.self.Listeners = []string{r.self.Addr}
	for len(r.lns) < n {
		ln, err := exchange.Listen("", 0)
		if err != nil {
			return fmt.Errorf("measurement listener %d of %d: %w", len(r.lns)+1, n, err)
		}
		r.lns = append(r.lns, ln)
		r.self.Listeners = append(r.self.Listeners, net.JoinHostPort(r.host, strconv.Itoa(ln.Port())))
	}
	return nil
}

// Close closes the measurement listeners.
func (r *Rank) Close() {
	for _, ln := range r.lns {
		ln.Close()
	}
}

// DeviceGID reads the GID the runs use on d's port. An error of opening
// the device is pkg/verbs' as is.
func DeviceGID(d *report.Device) (verbs.GID, error) {
	c, err := verbs.Open(d.Name)
	if err != nil {
		return verbs.GID{}, err
	}
	defer c.Close()
	g, _, err := c.QueryGID(d.Port, d.GIDIndex)
	if err != nil {
		return verbs.GID{}, fmt.Errorf("%s port %d GID index %d: %w", d.Name, d.Port, d.GIDIndex, err)
	}
	return g, nil
}

// Run finds the other ranks and sweeps. Rank 0 gets the document, which
// it writes (a partial one too, with the sweep's error); the others get
// nil. A rendezvous that fails, but for ctx ending, is bad input (marked by package inputerr):
// nothing was measured, and the run as launched cannot go.
func (r *Rank) Run(ctx context.Context) (*fabric.Document, error) {
	cfg, world := r.cfg, r.s.World
	sess, err := fabric.Rendezvous(ctx, fabric.RendezvousConfig{World: world, Self: r.self,
		Coordinator: cfg.Coordinator, Dir: cfg.Dir, AdvertiseHost: r.host, Timeout: cfg.RendezvousTimeout,
		Token: r.s.Local.Token, Log: r.s.Log})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, inputerr.Wrap(err)
	}
	select { // before this rank measures or serves
	case <-r.prepared:
	case <-ctx.Done():
		sess.Close()
		return nil, ctx.Err()
	}
	drop := cfg.DropResults(world.Size)
	sc := fabric.SweepConfig{Pattern: cfg.Pattern, Rails: cfg.Rails, PairTimeout: cfg.PairTimeout, Workloads: cfg.Workloads, DropResults: drop,
		Measurer: &PairMeasurer{Specs: r.s.Specs, Local: r.s.Local, Device: r.s.Device, Listeners: r.lns,
			FiguresOnly: drop, NewDocument: r.s.NewDocument},
		Outliers: fabric.OutlierOptions{ThresholdPct: cfg.ThresholdPct, Metrics: cfg.MatrixMetrics()},
		Recheck:  fabric.RecheckOptions{MaxPairs: cfg.OutlierPairs, Time: cfg.OutlierTime}, Probe: cfg.Probe}
	if world.Rank == 0 {
		sc.Progress = r.s.Log
		if cfg.Output.Save {
			sc.PairsDir = cfg.Output.ResultsDir // a rank 0 that dies leaves its pairs there
		}
		plan, _ := fabric.PlanFor(cfg.Pattern, world.Size, cfg.PairTimeout, 0) // a bound by the pair timeout: the synchronisation is not bounded
		kept := "full results"
		if drop {
			kept = "figures only"
		}
		fmt.Fprintf(r.s.Log, "rdma-bench fabric: %d ranks registered (%s, rendezvous via %s %s); pattern %s: %s, %s; keeping %s\n",
			world.Size, world.Launcher, sess.Method, sess.CoordinatorAddr, cfg.Pattern, plan.Bound(), cfg.afterSweep(), kept)
	}
	doc, err := sess.Sweep(ctx, sc)
	if world.Rank != 0 {
		return nil, err
	}
	return doc, err
}
