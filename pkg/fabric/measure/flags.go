//go:build cgo

package measure

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"
	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/analysis"
	"github.com/rdma-bench/rdma-bench/pkg/bench"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
	"github.com/rdma-bench/rdma-bench/pkg/fabric/heatmap"
	"github.com/rdma-bench/rdma-bench/pkg/point"
)

// Flags are the flags of `rdma-bench fabric`: the shared ones of the
// measuring commands, the run's Config, --plan, and the world's --rank
// and --world-size (without a launcher).
type Flags struct {
	Bench      bench.Flags
	Config     Config
	Plan       bool
	Rank, Size int
	fs         *pflag.FlagSet
}

// Register adds the flags to fs, the shared ones first; the shared flags
// fabric refuses (Check) are hidden.
func (f *Flags) Register(fs *pflag.FlagSet) {
	f.fs = fs
	c, o := &f.Config, &f.Config.Output
	f.Bench.Register(fs)
	p := fs.Lookup("port")
	p.Usage, p.DefValue = "TCP port of this rank's measurement listener (default: a free one, advertised to the others)", "0"
	fs.Lookup("token").Usage = "a shared secret every rank proves to rank 0 (an HMAC of a challenge, never sent) before rank 0 takes or tells it anything, and each pair's server checks (sent in clear there); default $" + bench.TokenEnv + ", which an empty --token never turns off"
	fs.StringVar(&c.Pattern, "pattern", fabric.PatternPairs, "which pairs: "+strings.Join(fabric.Patterns, ", ")+" (see docs/fabric.md)")
	fs.BoolVar(&c.Rails, "rails", false, "rail-aligned: pair only ranks whose devices have the same name (device i of every host, a rank a device: -d per rank, as the launcher places them), the pattern within each rail and the rails' rounds at once")
	fs.BoolVar(&c.Probe, "probe", false, fmt.Sprintf("a quick pass instead of the sweep: each pair connects and makes one round trip of each workload (-n 1, no warm-up; --pair-timeout %s unless given), to name the dead pairs before a long sweep; exit 1 when one fails", DefaultProbePairTimeout))
	fs.BoolVar(&f.Plan, "plan", false, "print the rounds and the sweep's estimated time, measure nothing (needs --world-size or a launcher)")
	fs.DurationVar(&c.PairTime, "pair-time", 0, "--plan: the time one pair takes (default: each workload's -D, or its iterations at --plan-latency, plus --plan-setup; else --pair-timeout)")
	fs.DurationVar(&c.PlanLatency, "plan-latency", 0, "--plan: the fabric's latency (half a round trip, as perftest reports it), such as 5us: a latency workload's iterations and warm-up count a round trip each")
	fs.DurationVar(&c.PlanSetup, "plan-setup", fabric.PlanSetup, "--plan: what a workload's set-up and teardown count a pair (device, memory, queue pairs, connection, counters)")
	fs.DurationVar(&c.PlanSync, "plan-sync", fabric.DefaultPlanSync, "--plan: rank 0's synchronisation a rank a round (assigning the round and collecting it), measured on a 2-core host with every rank on it")
	fs.Float64Var(&c.ThresholdPct, "threshold", fabric.DefaultThresholdPct, "a pair is a suspect when worse than the median of its metric by more than this percentage in the sweep, an outlier when its re-measurement confirms it")
	fs.IntVar(&c.OutlierPairs, "outlier-pairs", fabric.DefaultRecheckMaxPairs, fmt.Sprintf("the most times a suspect is re-measured alternately with the median pair (%d to 1000; a look every %d)", MinOutlierPairs, fabric.DefaultRecheckLookEvery))
	fs.DurationVar(&c.OutlierTime, "outlier-time", fabric.DefaultRecheckTime, "the most time re-measuring all the suspects takes: each gets an equal share of what is left, and one whose share runs out is undecided")
	fs.DurationVar(&c.PairTimeout, "pair-timeout", fabric.DefaultPairTimeout, "the most one pair's measurement (every workload) may take")
	fs.IntVar(&f.Rank, "rank", 0, "this process's rank, 0..world size-1 (without a launcher)")
	fs.IntVar(&f.Size, "world-size", 0, fmt.Sprintf("the number of processes, 2 to %d (without a launcher, or in a Kubernetes Indexed Job)", fabric.MaxWorldSize))
	fs.StringVar(&c.Coordinator, "coordinator", "", "HOST:PORT: rank 0 listens on PORT, the others dial it (HOST is rank 0's host)")
	fs.StringVar(&c.Dir, "rendezvous-dir", "", "a directory every host shares, one per run, where rank 0 writes its address")
	fs.DurationVar(&c.RendezvousTimeout, "rendezvous-timeout", fabric.DefaultRendezvousTimeout, "the longest wait for every rank to register (rank 0) or for rank 0 (the others)")
	fs.StringVar(&c.Advertise, "advertise", "", "the host or address the other ranks dial to reach this one (default: the RoCE GID's IPv4 address, else the host name)")
	fs.StringVarP(&o.Format, "output", "o", "table", "rank 0's output: table or json")
	fs.StringVar(&o.File, "output-file", "", "rank 0 writes its output to this file instead of standard output: "+outfile.Rules)
	fs.BoolVar(&o.Save, "save", false, "rank 0 also saves the JSON document under --results-dir")
	fs.StringVar(&o.ResultsDir, "results-dir", "results", "where --save writes")
	fs.StringVar(&c.PlotDir, "plot", "", "rank 0 draws a heat map (SVG and PNG) per workload and metric into this directory")
	fs.BoolVar(&c.FiguresOnly, "figures-only", false, fmt.Sprintf("keep each pair's headline figures only, not its full results (about 8 KB a pair; always beyond %d ranks)", MaxFullResultRanks))
	for _, n := range []string{"all", "sweep-min", "sweep-max", "report-interval"} {
		_ = fs.MarkHidden(n) // refused by Check: one size a workload, rank 0 reports a line a round
	}
}

// Check validates, once the flags are parsed, everything that needs
// neither a device nor a peer, and takes the workloads from the
// arguments. Its errors are bad input (marked by package inputerr).
func (f *Flags) Check() error {
	fs := f.fs
	if err := bench.RejectChanged(fs, "fabric: give one size with -s", "all", "sweep-min", "sweep-max"); err != nil {
		return err
	}
	if fs.Changed("report-interval") {
		return inputerr.New("--report-interval does not apply to fabric: rank 0 prints a line a round")
	}
	if err := f.Bench.Check(); err != nil {
		return err
	}
	names, err := Workloads(fs.Args())
	if err != nil {
		return inputerr.Wrap(err)
	}
	f.Config.Workloads = names
	if err := bench.CheckRDMAFlags(fs, names); err != nil {
		return err
	}
	var given []string
	fs.Visit(func(fl *pflag.Flag) { given = append(given, fl.Name) })
	if err := CheckFlagsApply(names, given); err != nil {
		return inputerr.Wrap(err)
	}
	if err := f.Config.Check(); err != nil {
		return inputerr.Wrap(err)
	}
	if f.Config.Pattern == fabric.PatternIncast && fs.Changed("port") {
		return inputerr.New("-p %d with --pattern incast: each rank opens a listener per other rank, on free ports -p cannot name; leave -p out (or use another pattern)", f.Bench.Port)
	}
	if f.Config.Probe {
		if err := f.probe(); err != nil {
			return err
		}
	}
	if f.Config.Advertise != "" {
		if _, err := bench.CheckHost(f.Config.Advertise); err != nil {
			return inputerr.New("--advertise: %v", err)
		}
	}
	return nil
}

// World is --rank and --world-size for fabric.DetectWorld.
func (f *Flags) World() fabric.Flags {
	return fabric.Flags{Rank: f.Rank, Size: f.Size, RankSet: f.fs.Changed("rank"), SizeSet: f.fs.Changed("world-size")}
}

// Launch finds this process's world (getenv reads the launcher's
// variables), checks that it can find rank 0 and, on rank 0, write what
// it was asked to (its output's notes go to log). It returns the world,
// the points to measure on every pair and the parameters every rank must
// share. Its errors are bad input.
func (f *Flags) Launch(getenv func(string) string, log io.Writer) (fabric.World, []point.Spec, map[string]string, error) {
	c := &f.Config
	world, err := fabric.DetectWorld(getenv, f.World())
	if err != nil {
		return world, nil, nil, inputerr.Wrap(err)
	}
	if err := c.CheckLaunch(world, getenv); err != nil {
		return world, nil, nil, inputerr.Wrap(err)
	}
	c.Output.Metrics, c.Output.Log = c.MatrixMetrics(), log
	if world.Rank == 0 {
		if err := c.CheckOutputs(); err != nil {
			return world, nil, nil, inputerr.Wrap(err)
		}
	}
	specs := c.Specs(f.Bench.Spec)
	params, err := c.Params(specs)
	if err != nil {
		return world, nil, nil, inputerr.Wrap(err)
	}
	return world, specs, params, nil
}

// WriteResults writes rank 0's results: the document's outputs, then the
// heat maps into PlotDir (saying so on log). It returns sweepErr, the
// sweep's own outcome, joined with their errors. They are written even
// after an interrupt: what was measured is in them.
func (c *Config) WriteResults(doc *fabric.Document, sweepErr error, log io.Writer) error {
	errs := []error{sweepErr, c.Output.Write(doc)}
	if c.PlotDir != "" {
		written, err := analysis.WriteCharts(context.Background(), c.PlotDir, heatmap.Charts(doc, log))
		if err == nil {
			fmt.Fprintf(log, "wrote %d heat maps (SVG and PNG) into %s\n", len(written)/2, c.PlotDir)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// DefaultProbePairTimeout is --pair-timeout's default with --probe: a
// pair's set-up and one round trip take about a second under the
// project's emulated VM.
const DefaultProbePairTimeout = 10 * time.Second

// probe sets a probe pass up: one iteration a workload, no warm-up, the
// probe's pair timeout unless given. It refuses what a probe cannot do.
func (f *Flags) probe() error {
	for _, n := range []string{"iters", "duration", "warmup", "outlier-pairs", "outlier-time", "threshold", "plot", "plan"} {
		if f.fs.Changed(n) {
			return inputerr.New("--%s does not apply to --probe: a probe makes one round trip a pair and compares nothing", n)
		}
	}
	f.Bench.Spec.Iterations, f.Bench.Spec.Duration, f.Bench.Spec.Warmup = 1, 0, 0
	if !f.fs.Changed("pair-timeout") {
		f.Config.PairTimeout = DefaultProbePairTimeout
	}
	return nil
}
