//go:build cgo

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/bench"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
	"github.com/rdma-bench/rdma-bench/pkg/fabric/heatmap"
	"github.com/rdma-bench/rdma-bench/pkg/fabric/measure"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

func init() {
	register("fabric", "measure every host pair of a fabric, one process per host started by a launcher", runFabric)
}

const fabricUsage = `usage: rdma-bench fabric WORKLOAD... [flags]

Started once per host (or NIC) by a launcher: mpirun (give --coordinator or
--rendezvous-dir), mpiexec or srun --mpi=pmi2 (PMI: nothing to give), srun,
a Kubernetes Indexed Job (with --world-size), or by hand with --rank and
--world-size. Rank 0 coordinates, measures its share, and prints a matrix per
workload, the failed pairs and the outliers: the pairs worse than the median
in the sweep, re-measured alternately with the median pair until a paired
interval confirms or clears them; the others print only errors.
Exit status: 0, 1 when a pair failed or is an outlier, 2 on bad input.
See docs/fabric.md.

workloads: %s

`

// fabricFlags are fabric's own flags, beside the shared ones.
type fabricFlags struct {
	b          bench.Flags
	cfg        measure.Config
	plan       bool
	rank, size int
	fs         *pflag.FlagSet
}

func addFabricFlags(fs *pflag.FlagSet, f *fabricFlags) {
	f.fs = fs
	c, o := &f.cfg, &f.cfg.Output
	f.b.Register(fs)
	p := fs.Lookup("port")
	p.Usage, p.DefValue = "TCP port of this rank's measurement listener (default: a free one, advertised to the others)", "0"
	fs.Lookup("token").Usage = "a shared secret every rank proves to rank 0 (an HMAC of a challenge, never sent) before rank 0 takes or tells it anything, and each pair's server checks (sent in clear there); default $" + bench.TokenEnv + ", which an empty --token never turns off"
	fs.StringVar(&c.Pattern, "pattern", fabric.PatternPairs, "which pairs: "+strings.Join(fabric.Patterns, ", ")+" (see docs/fabric.md)")
	fs.BoolVar(&f.plan, "plan", false, "print the rounds and the sweep's estimated time, measure nothing (needs --world-size or a launcher)")
	fs.DurationVar(&c.PairTime, "pair-time", 0, "--plan: the time one pair takes (default: each workload's -D plus 1s of set-up, else --pair-timeout)")
	fs.Float64Var(&c.ThresholdPct, "threshold", fabric.DefaultThresholdPct, "a pair is a suspect when worse than the median of its metric by more than this percentage in the sweep, an outlier when its re-measurement confirms it")
	fs.IntVar(&c.OutlierPairs, "outlier-pairs", fabric.DefaultRecheckMaxPairs, fmt.Sprintf("the most times a suspect is re-measured alternately with the median pair (%d to 1000; a look every %d)", measure.MinOutlierPairs, fabric.DefaultRecheckLookEvery))
	fs.DurationVar(&c.PairTimeout, "pair-timeout", fabric.DefaultPairTimeout, "the most one pair's measurement (every workload) may take")
	fs.IntVar(&f.rank, "rank", 0, "this process's rank, 0..world size-1 (without a launcher)")
	fs.IntVar(&f.size, "world-size", 0, fmt.Sprintf("the number of processes, 2 to %d (without a launcher, or in a Kubernetes Indexed Job)", fabric.MaxWorldSize))
	fs.StringVar(&c.Coordinator, "coordinator", "", "HOST:PORT: rank 0 listens on PORT, the others dial it (HOST is rank 0's host)")
	fs.StringVar(&c.Dir, "rendezvous-dir", "", "a directory every host shares, one per run, where rank 0 writes its address")
	fs.DurationVar(&c.RendezvousTimeout, "rendezvous-timeout", fabric.DefaultRendezvousTimeout, "the longest wait for every rank to register (rank 0) or for rank 0 (the others)")
	fs.StringVar(&c.Advertise, "advertise", "", "the host or address the other ranks dial to reach this one (default: the RoCE GID's IPv4 address, else the host name)")
	fs.StringVarP(&o.Format, "output", "o", "table", "rank 0's output: table or json")
	fs.StringVar(&o.File, "output-file", "", "rank 0 writes its output to this file instead of standard output: "+outfile.Rules)
	fs.BoolVar(&o.Save, "save", false, "rank 0 also saves the JSON document under --results-dir")
	fs.StringVar(&o.ResultsDir, "results-dir", "results", "where --save writes")
	fs.StringVar(&c.PlotDir, "plot", "", "rank 0 draws a heat map (SVG and PNG) per workload and metric into this directory")
	fs.BoolVar(&c.FiguresOnly, "figures-only", false, fmt.Sprintf("keep each pair's headline figures only, not its full results (about 8 KB a pair; always beyond %d ranks)", measure.MaxFullResultRanks))
	for _, n := range []string{"all", "sweep-min", "sweep-max", "report-interval"} {
		_ = fs.MarkHidden(n) // refused by check: one size a workload, rank 0 reports a line a round
	}
}

// check validates everything that needs neither a device nor a peer.
func (f *fabricFlags) check() error {
	fs := f.fs
	if err := bench.RejectChanged(fs, "fabric: give one size with -s", "all", "sweep-min", "sweep-max"); err != nil {
		return err
	}
	if fs.Changed("report-interval") {
		return usageError("--report-interval does not apply to fabric: rank 0 prints a line a round")
	}
	if err := f.b.Check(); err != nil {
		return err
	}
	names, err := measure.Workloads(fs.Args())
	if err != nil {
		return usageError("%v", err)
	}
	f.cfg.Workloads = names
	if err := bench.CheckRDMAFlags(fs, names); err != nil {
		return err
	}
	var given []string
	fs.Visit(func(fl *pflag.Flag) { given = append(given, fl.Name) })
	if err := measure.CheckFlagsApply(names, given); err != nil {
		return usageError("%v", err)
	}
	if err := f.cfg.Check(); err != nil {
		return usageError("%v", err)
	}
	if f.cfg.Advertise != "" {
		if _, err := bench.CheckHost(f.cfg.Advertise); err != nil {
			return usageError("--advertise: %v", err)
		}
	}
	return nil
}

// worldFlags are --rank and --world-size for fabric.DetectWorld.
func (f *fabricFlags) worldFlags() fabric.Flags {
	return fabric.Flags{Rank: f.rank, Size: f.size, RankSet: f.fs.Changed("rank"), SizeSet: f.fs.Changed("world-size")}
}

func runFabric(ctx context.Context, args []string) error {
	fs := newFlagSet("fabric")
	var f fabricFlags
	addFabricFlags(fs, &f)
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, fabricUsage, strings.Join(workloads.Names(), ", "))
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	if f.plan {
		return f.cfg.WritePlan(os.Stdout, os.Getenv, f.worldFlags(), f.b.Spec.Duration)
	}
	world, err := fabric.DetectWorld(os.Getenv, f.worldFlags())
	if err != nil {
		return usageError("%v", err)
	}
	if err := f.cfg.CheckLaunch(world, os.Getenv); err != nil {
		return usageError("%v", err)
	}
	f.cfg.Output.Metrics, f.cfg.Output.Log = f.cfg.MatrixMetrics(), os.Stderr
	if world.Rank == 0 {
		if err := f.cfg.CheckOutputs(); err != nil {
			return usageError("%v", err)
		}
	}
	specs := f.cfg.Specs(f.b.Spec)
	params, err := f.cfg.Params(specs)
	if err != nil {
		return usageError("%v", err)
	}
	pts, err := f.b.Resolve(specs, bench.Target{Host: "peer"}, false, 1, os.Stderr)
	if err != nil {
		return deviceError(err)
	}
	s := measure.Setup{World: world, Specs: pts.Specs, Device: pts.Device, Local: f.b.Local,
		Params: params, Version: fabricVersion(), NewDocument: newDocument, Log: os.Stderr}
	if fs.Changed("port") {
		s.Port = f.b.Port
	}
	r, err := measure.NewRank(&f.cfg, s)
	if err != nil {
		return deviceError(err)
	}
	defer r.Close()
	doc, err := r.Run(ctx)
	if doc == nil {
		return err
	}
	return f.report(doc, err)
}

// report writes rank 0's results (the document's outputs, then the heat
// maps) and returns the run's status: sweepErr, an output error, or exit
// status 1 for failed or outlying pairs.
func (f *fabricFlags) report(doc *fabric.Document, sweepErr error) error {
	errs := []error{sweepErr, f.cfg.Output.Write(doc)}
	if f.cfg.PlotDir != "" {
		written, err := writeCharts(f.cfg.PlotDir, heatmap.Charts(doc, os.Stderr))
		if err == nil {
			fmt.Fprintf(os.Stderr, "wrote %d heat maps (SVG and PNG) into %s\n", len(written)/2, f.cfg.PlotDir)
		}
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if fabric.ExitStatus(doc) != 0 {
		return &exitStatus{code: 1, msg: fabric.Summary(doc)}
	}
	return nil
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
