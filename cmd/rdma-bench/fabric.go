//go:build cgo

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
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
	b            benchFlags
	pattern      string
	plan         bool
	pairTime     time.Duration
	thresholdPct float64
	outlierPairs int
	pairTimeout  time.Duration
	rank, size   int
	coordinator  string
	dir          string
	rvTimeout    time.Duration
	advertise    string
	format, file string
	save         bool
	results      string
	plotDir      string
	figuresOnly  bool
	names        []string // the workloads, in order
	fs           *pflag.FlagSet
	portGiven    bool
}

func addFabricFlags(fs *pflag.FlagSet, f *fabricFlags) {
	f.fs = fs
	addBenchFlags(fs, &f.b)
	p := fs.Lookup("port")
	p.Usage, p.DefValue = "TCP port of this rank's measurement listener (default: a free one, advertised to the others)", "0"
	fs.Lookup("token").Usage = "a shared secret every rank proves to rank 0 (an HMAC of a challenge, never sent) before rank 0 takes or tells it anything, and each pair's server checks (sent in clear there); default $" + tokenEnv + ", which an empty --token never turns off"
	fs.StringVar(&f.pattern, "pattern", fabric.PatternPairs, "which pairs: "+strings.Join(fabric.Patterns, ", ")+" (see docs/fabric.md)")
	fs.BoolVar(&f.plan, "plan", false, "print the rounds and the sweep's estimated time, measure nothing (needs --world-size or a launcher)")
	fs.DurationVar(&f.pairTime, "pair-time", 0, "--plan: the time one pair takes (default: each workload's -D plus 1s of set-up, else --pair-timeout)")
	fs.Float64Var(&f.thresholdPct, "threshold", fabric.DefaultThresholdPct, "a pair is a suspect when worse than the median of its metric by more than this percentage in the sweep, an outlier when its re-measurement confirms it")
	fs.IntVar(&f.outlierPairs, "outlier-pairs", fabric.DefaultRecheckMaxPairs, fmt.Sprintf("the most times a suspect is re-measured alternately with the median pair (%d to 1000; a look every %d)", minOutlierPairs, fabric.DefaultRecheckLookEvery))
	fs.DurationVar(&f.pairTimeout, "pair-timeout", fabric.DefaultPairTimeout, "the most one pair's measurement (every workload) may take")
	fs.IntVar(&f.rank, "rank", 0, "this process's rank, 0..world size-1 (without a launcher)")
	fs.IntVar(&f.size, "world-size", 0, fmt.Sprintf("the number of processes, 2 to %d (without a launcher, or in a Kubernetes Indexed Job)", fabric.MaxWorldSize))
	fs.StringVar(&f.coordinator, "coordinator", "", "HOST:PORT: rank 0 listens on PORT, the others dial it (HOST is rank 0's host)")
	fs.StringVar(&f.dir, "rendezvous-dir", "", "a directory every host shares, one per run, where rank 0 writes its address")
	fs.DurationVar(&f.rvTimeout, "rendezvous-timeout", fabric.DefaultRendezvousTimeout, "the longest wait for every rank to register (rank 0) or for rank 0 (the others)")
	fs.StringVar(&f.advertise, "advertise", "", "the host or address the other ranks dial to reach this one (default: the RoCE GID's IPv4 address, else the host name)")
	fs.StringVarP(&f.format, "output", "o", "table", "rank 0's output: table or json")
	fs.StringVar(&f.file, "output-file", "", "rank 0 writes its output to this file instead of standard output: "+outfile.Rules)
	fs.BoolVar(&f.save, "save", false, "rank 0 also saves the JSON document under --results-dir")
	fs.StringVar(&f.results, "results-dir", "results", "where --save writes")
	fs.StringVar(&f.plotDir, "plot", "", "rank 0 draws a heat map (SVG and PNG) per workload and metric into this directory")
	fs.BoolVar(&f.figuresOnly, "figures-only", false, fmt.Sprintf("keep each pair's headline figures only, not its full results (about 8 KB a pair; always beyond %d ranks)", maxFullResultRanks))
	for _, n := range []string{"all", "sweep-min", "sweep-max", "report-interval"} {
		_ = fs.MarkHidden(n) // refused by check: one size a workload, rank 0 reports a line a round
	}
}

// check validates everything that needs neither a device nor a peer.
func (f *fabricFlags) check() error {
	fs := f.fs
	if err := rejectChanged(fs, "fabric: give one size with -s", "all", "sweep-min", "sweep-max"); err != nil {
		return err
	}
	if fs.Changed("report-interval") {
		return usageError("--report-interval does not apply to fabric: rank 0 prints a line a round")
	}
	f.portGiven = fs.Changed("port")
	if err := f.b.check(); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError("name the workloads to measure on every pair: %s", strings.Join(workloads.Names(), ", "))
	}
	seen := map[string]bool{}
	for _, a := range fs.Args() {
		w, err := workloads.Lookup(a)
		if err != nil {
			return usageError("%v", err)
		}
		if seen[w.Name] {
			return usageError("workload %s named twice: name each once", w.Name)
		}
		seen[w.Name] = true
		f.names = append(f.names, w.Name)
	}
	if err := checkRDMAFlags(fs, f.names); err != nil {
		return err
	}
	if err := f.checkApplies(); err != nil {
		return err
	}
	if _, err := fabric.Schedule(f.pattern, 2); err != nil {
		return usageError("--pattern %q: want %s", f.pattern, strings.Join(fabric.Patterns, ", "))
	}
	if !(f.thresholdPct > 0) || f.thresholdPct > 1e6 {
		return usageError("--threshold %v: want a percentage above 0 such as 20", f.thresholdPct)
	}
	if f.outlierPairs < minOutlierPairs || f.outlierPairs > 1000 {
		return usageError("--outlier-pairs %d: want %d to 1000 (fewer pairs never decide)", f.outlierPairs, minOutlierPairs)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"--pair-timeout", f.pairTimeout}, {"--rendezvous-timeout", f.rvTimeout}} {
		if d.v < time.Second {
			return usageError("%s %s: want at least 1s, such as 60s", d.name, d.v)
		}
	}
	if f.pairTime < 0 {
		return usageError("--pair-time %s: want a positive duration such as 10s", f.pairTime)
	}
	if f.format != "table" && f.format != "json" {
		return usageError("-o %q: want table or json", f.format)
	}
	if f.coordinator != "" {
		if err := checkHostPort(f.coordinator); err != nil {
			return usageError("--coordinator %q: %v", f.coordinator, err)
		}
	}
	if f.advertise != "" {
		if _, err := checkHost(f.advertise); err != nil {
			return usageError("--advertise: %v", err)
		}
	}
	return nil
}

// minOutlierPairs is the fewest re-measurements --outlier-pairs allows:
// two looks. A first look's 6 pairs never decide: the signed-rank
// interval of 6 pairs is bounded only at 96.9% confidence or less (1 -
// 2/64), and with the default false-alarm rate of 1% even a lone
// suspect's interval is drawn at 98% or more.
const minOutlierPairs = 2 * fabric.DefaultRecheckLookEvery

// checkApplies refuses a shared flag that applies to none of the
// workloads (one that applies to some is dropped for the others, as in
// the suite).
func (f *fabricFlags) checkApplies() error {
	var err error
	f.fs.Visit(func(fl *pflag.Flag) {
		p, ok := workloads.ParamByFlag(fl.Name)
		if !ok || err != nil {
			return
		}
		for _, n := range f.names {
			if w, _ := workloads.Lookup(n); p.Applies(w) {
				return
			}
		}
		err = usageError("--%s applies to none of %s", fl.Name, strings.Join(f.names, ", "))
	})
	return err
}

// checkHostPort checks a HOST:PORT.
func checkHostPort(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" {
		return fmt.Errorf("want HOST:PORT such as node-0:18600")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %q: want 1..65535", port)
	}
	return nil
}

// specs are the points to run on every pair, one per workload, with the
// shared flags that apply to it.
func (f *fabricFlags) specs() []workloads.Spec {
	out := make([]workloads.Spec, 0, len(f.names))
	for _, n := range f.names {
		w, _ := workloads.Lookup(n)
		out = append(out, f.b.spec.Only(w))
	}
	return out
}

// maxFullResultRanks is the largest world whose pairs' full results rank 0
// keeps: 64 ranks' 4032 pairs at about 8 KB each (write_lat and write_bw)
// are 32 MB; 1024 ranks' million pairs would be 8 GB.
const maxFullResultRanks = 64

// dropResults says whether the pairs' full results are left out.
func (f *fabricFlags) dropResults(size int) bool {
	return f.figuresOnly || size > maxFullResultRanks
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
		return f.writePlan(os.Stdout)
	}
	world, err := fabric.DetectWorld(os.Getenv, f.worldFlags())
	if err != nil {
		return usageError("%v", err)
	}
	if os.Getenv("PMI_FD") == "" && f.coordinator == "" && f.dir == "" {
		return usageError("no way for the ranks to find rank 0 (this is rank %d of %d, %s): PMI_FD is unset (not under mpiexec or srun --mpi=pmi2): give --coordinator HOST:PORT or --rendezvous-dir DIR", world.Rank, world.Size, world.Launcher)
	}
	if f.dir != "" {
		if fi, err := os.Stat(f.dir); err != nil || !fi.IsDir() {
			return usageError("--rendezvous-dir %s: want an existing directory every host shares, one per run", f.dir)
		}
	}
	if world.Rank == 0 {
		if err := f.checkOutputs(); err != nil {
			return err
		}
	}
	r, err := newFabricRank(&f, world)
	if err != nil {
		return err
	}
	defer r.close()
	return r.run(ctx)
}
