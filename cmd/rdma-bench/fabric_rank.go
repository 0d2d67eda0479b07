//go:build cgo

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

// fabricRank is one process of a fabric run: its points, checked against
// its device, its measurement listener, and what it registers.
type fabricRank struct {
	f     *fabricFlags
	world fabric.World
	pts   resolved
	ln    *exchange.Listener
	self  fabric.Member
	host  string // the host or address the others dial
}

// newFabricRank checks the points against the local device, opens the
// measurement listener and describes this rank for the rendezvous.
func newFabricRank(f *fabricFlags, world fabric.World) (*fabricRank, error) {
	specs := f.specs()
	params, err := f.canonicalParams(specs)
	if err != nil {
		return nil, err
	}
	pts, err := f.b.resolve(specs, target{host: "peer"}, false, 1)
	if err != nil {
		return nil, err
	}
	r := &fabricRank{f: f, world: world, pts: pts, host: f.advertise}
	hostname, err := os.Hostname()
	if err != nil {
		return nil, fmt.Errorf("this host's name: %w", err)
	}
	r.self = fabric.Member{Hostname: hostname, Version: fabricVersion(), Params: params}
	if d := pts.device; d != nil {
		gid, err := deviceGID(d)
		if err != nil {
			return nil, err
		}
		r.self.Device, r.self.Port, r.self.MTUBytes, r.self.GID = d.Name, d.Port, d.MTU, gid.String()
		if ip, ok := gid.IPv4(); ok && r.host == "" {
			r.host = ip // RoCE v2: the address on the fabric measured
		}
	}
	if r.host == "" {
		r.host = hostname
	}
	port := 0
	if f.portGiven {
		port = f.b.port
	}
	if r.ln, err = exchange.Listen("", port); err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("measurement listener: %w (one rank per host with -p, or leave -p out for a free port)", err)
		}
		return nil, usageError("measurement listener: %v", err)
	}
	r.self.Addr = net.JoinHostPort(r.host, strconv.Itoa(r.ln.Port()))
	return r, nil
}

func (r *fabricRank) close() { r.ln.Close() }

// canonicalParams are the run's parameters every rank must share: the
// workloads, each point's shared parameters as asked (resolved without a
// device), and what rank 0 decides from its own flags.
func (f *fabricFlags) canonicalParams(specs []workloads.Spec) (map[string]string, error) {
	p := map[string]string{
		"workloads":     strings.Join(f.names, ","),
		"pattern":       f.pattern,
		"pair_timeout":  f.pairTimeout.String(),
		"threshold":     strconv.FormatFloat(f.thresholdPct, 'g', -1, 64) + "%",
		"outlier_pairs": strconv.Itoa(f.outlierPairs),
		"figures_only":  strconv.FormatBool(f.figuresOnly),
	}
	for _, sp := range specs {
		r, _, err := sp.Resolve(nil)
		if err != nil {
			return nil, usageError("%v", err)
		}
		for k, v := range r.Encode() {
			if k != "workload" {
				p[r.Workload+"."+k] = v
			}
		}
	}
	return p, nil
}

// fabricVersion is the version every rank must run: the version and the
// commit, so that two builds of one version are told apart.
func fabricVersion() string {
	v := buildVersion()
	if v.commit == "" {
		return v.version
	}
	return fmt.Sprintf("%s (commit %s)", v.version, v.commit)
}

// deviceGID reads the GID the runs use on d's port.
func deviceGID(d *report.Device) (verbs.GID, error) {
	c, err := verbs.Open(d.Name)
	if err != nil {
		return verbs.GID{}, deviceError(err)
	}
	defer c.Close()
	g, _, err := c.QueryGID(d.Port, d.GIDIndex)
	if err != nil {
		return verbs.GID{}, fmt.Errorf("%s port %d GID index %d: %w", d.Name, d.Port, d.GIDIndex, err)
	}
	return g, nil
}

// run finds the other ranks, sweeps, and on rank 0 writes the results.
// A rendezvous that fails is bad input (exit 2): nothing was measured,
// and the run as launched cannot go.
func (r *fabricRank) run(ctx context.Context) error {
	f := r.f
	sess, err := fabric.Rendezvous(ctx, fabric.RendezvousConfig{World: r.world, Self: r.self,
		Coordinator: f.coordinator, Dir: f.dir, AdvertiseHost: r.host, Timeout: f.rvTimeout,
		Token: f.b.local.Token, Log: os.Stderr})
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return usageError("%v", err)
	}
	drop := f.dropResults(r.world.Size)
	cfg := fabric.SweepConfig{Pattern: f.pattern, PairTimeout: f.pairTimeout, Workloads: f.names, DropResults: drop,
		Measurer: &pairMeasurer{specs: r.pts.specs, local: f.b.local, device: r.pts.device, ln: r.ln, figuresOnly: drop},
		Outliers: fabric.OutlierOptions{ThresholdPct: f.thresholdPct, Metrics: f.matrixMetrics()},
		Recheck:  fabric.RecheckOptions{MaxPairs: f.outlierPairs}}
	if r.world.Rank == 0 {
		cfg.Progress = os.Stderr
		rounds, _ := fabric.Schedule(f.pattern, r.world.Size)
		kept := "full results"
		if drop {
			kept = "figures only"
		}
		fmt.Fprintf(os.Stderr, "rdma-bench fabric: %d ranks registered (%s, rendezvous via %s %s); pattern %s: %s; keeping %s\n",
			r.world.Size, r.world.Launcher, sess.Method, sess.CoordinatorAddr, f.pattern, planLine(fabric.Plan(rounds, f.pairTimeout)), kept)
	}
	doc, err := sess.Sweep(ctx, cfg)
	if r.world.Rank != 0 || doc == nil {
		return err
	}
	return r.report(doc, err)
}

// planLine is a plan in words, with its time as a bound: "6 rounds, 12
// pairs (at most 2 a round), at most 6 x 1m0s = 6m0s".
func planLine(p fabric.PlanSummary) string {
	return fmt.Sprintf("%d rounds, %d pairs (at most %d a round), at most %d x %s = %s",
		p.Rounds, p.Pairs, p.MaxPairsPerRound, p.Rounds, p.PerPair, p.Estimated)
}
