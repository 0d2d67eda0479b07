//go:build cgo

// Package measure runs a rank of a fabric sweep on the workloads'
// harness: the run's configuration and its checks, the rank's set-up
// (its device's GID, its measurement listener, what it registers), and
// the fabric.Measurer that measures a pair with the workloads' client
// and server. Package fabric does the rest and measures nothing.
package measure

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
	"github.com/rdma-bench/rdma-bench/pkg/fabric/heatmap"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

// Config is a fabric run as asked, beside the points' parameters: the
// flags of `rdma-bench fabric` that are its own. Its checks' errors name
// the flags.
type Config struct {
	// Workloads are the workloads measured on every pair, in order.
	Workloads []string
	// Pattern names the pairs' schedule (fabric.Patterns).
	Pattern string
	// ThresholdPct makes a pair a suspect (fabric.OutlierOptions).
	ThresholdPct float64
	// OutlierPairs is the most re-measurements of a suspect, OutlierTime
	// the most time re-measuring all of them.
	OutlierPairs int
	OutlierTime  time.Duration
	// PairTimeout is the most one pair's measurement may take.
	PairTimeout time.Duration
	// PairTime is the time a plan counts for a pair (0: estimated).
	PairTime time.Duration
	// PlanLatency is the fabric's latency a plan assumes for a latency
	// workload's iterations (0: not given), PlanSetup what it counts for
	// a workload's set-up, PlanSync rank 0's synchronisation a rank a
	// round (fabric.PairCost, fabric.DefaultPlanSync).
	PlanLatency, PlanSetup, PlanSync time.Duration
	// Coordinator is rank 0's HOST:PORT, Dir a shared rendezvous
	// directory, RendezvousTimeout the longest wait for the others.
	Coordinator       string
	Dir               string
	RendezvousTimeout time.Duration
	// Advertise is the host the others dial to reach this rank ("": the
	// RoCE GID's IPv4 address, else the host name).
	Advertise string
	// FiguresOnly keeps each pair's headline figures only.
	FiguresOnly bool
	// Probe makes the run a probe pass (fabric.SweepConfig.Probe): one
	// iteration a workload, no warm-up, no suspects.
	Probe bool
	// Rails makes the schedule rail-aligned (fabric.SweepConfig.Rails).
	Rails bool
	// Output is what rank 0 writes, PlotDir where it draws the heat maps
	// ("": none).
	Output  fabric.Output
	PlotDir string
}

// MinOutlierPairs is the fewest re-measurements OutlierPairs allows: two
// looks. A first look's 6 pairs never decide: the signed-rank interval
// of 6 pairs is bounded only at 96.9% confidence or less (1 - 2/64), and
// with the default false-alarm rate of 1% even a lone suspect's interval
// is drawn at 98% or more.
const MinOutlierPairs = 2 * fabric.DefaultRecheckLookEvery

// MaxFullResultRanks is the largest world whose pairs' full results rank
// 0 keeps: 64 ranks' 4032 pairs at about 8 KB each (write_lat and
// write_bw) are 32 MB; 1024 ranks' million pairs would be 8 GB.
const MaxFullResultRanks = 64

// Workloads checks the workloads named on the command line: at least
// one, each known and named once. It returns their names.
func Workloads(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("name the workloads to measure on every pair: %s", strings.Join(catalog.Names(), ", "))
	}
	var names []string
	seen := map[string]bool{}
	for _, a := range args {
		w, err := catalog.Lookup(a)
		if err != nil {
			return nil, err
		}
		if seen[w.Name] {
			return nil, fmt.Errorf("workload %s named twice: name each once", w.Name)
		}
		seen[w.Name] = true
		names = append(names, w.Name)
	}
	return names, nil
}

// CheckFlagsApply refuses a shared parameter's flag, among the flags
// given, that applies to none of the workloads (one that applies to some
// is dropped for the others, as in the suite).
func CheckFlagsApply(names, flags []string) error {
	for _, fl := range flags {
		p, ok := point.ParamByFlag(fl)
		if !ok {
			continue
		}
		if !slices.ContainsFunc(names, func(n string) bool { w, _ := catalog.Lookup(n); return p.Applies(w) }) {
			return fmt.Errorf("--%s applies to none of %s", fl, strings.Join(names, ", "))
		}
	}
	return nil
}

// Check validates what needs neither a device nor a peer, but the
// workloads (Workloads) and the advertised host.
func (c *Config) Check() error {
	if _, err := fabric.Schedule(c.Pattern, 2); err != nil {
		return fmt.Errorf("--pattern %q: want %s", c.Pattern, strings.Join(fabric.Patterns, ", "))
	}
	if c.Pattern == fabric.PatternIncast && len(c.Workloads) > 1 {
		// A pair runs its workloads one after another and the senders
		// are not kept in step: one sender's latency run would meet the
		// others' bandwidth into the same receiver.
		return fmt.Errorf("--pattern incast with %d workloads (%s): incast measures one workload a sweep, so that every sender into a receiver runs it at the same time; run one fabric sweep per workload", len(c.Workloads), strings.Join(c.Workloads, ", "))
	}
	if !(c.ThresholdPct > 0) || c.ThresholdPct > 1e6 {
		return fmt.Errorf("--threshold %v: want a percentage above 0 such as 20", c.ThresholdPct)
	}
	if c.OutlierPairs < MinOutlierPairs || c.OutlierPairs > 1000 {
		return fmt.Errorf("--outlier-pairs %d: want %d to 1000 (fewer pairs never decide)", c.OutlierPairs, MinOutlierPairs)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"--pair-timeout", c.PairTimeout}, {"--rendezvous-timeout", c.RendezvousTimeout}, {"--outlier-time", c.OutlierTime}} {
		if d.v < time.Second {
			return fmt.Errorf("%s %s: want at least 1s, such as 60s", d.name, d.v)
		}
	}
	if c.PairTime < 0 {
		return fmt.Errorf("--pair-time %s: want a positive duration such as 10s", c.PairTime)
	}
	for _, d := range []struct {
		name, example string
		v, most       time.Duration
	}{{"--plan-latency", "5us", c.PlanLatency, time.Second}, {"--plan-setup", "20ms", c.PlanSetup, time.Hour}, {"--plan-sync", "100us", c.PlanSync, time.Second}} {
		if d.v < 0 || d.v > d.most {
			return fmt.Errorf("%s %s: want 0 to %s, such as %s", d.name, d.v, d.most, d.example)
		}
	}
	if f := c.Output.Format; f != "table" && f != "json" {
		return fmt.Errorf("-o %q: want table or json", f)
	}
	if c.Coordinator != "" {
		if err := checkHostPort(c.Coordinator); err != nil {
			return fmt.Errorf("--coordinator %q: %w", c.Coordinator, err)
		}
	}
	return nil
}

// checkHostPort checks a HOST:PORT.
func checkHostPort(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" {
		return errors.New("want HOST:PORT such as node-0:18600")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %q: want 1..65535", port)
	}
	return nil
}

// Params are the run's parameters every rank must share: the workloads,
// each point's shared parameters as asked (resolved without a device),
// and what rank 0 decides from its own configuration.
func (c *Config) Params(specs []point.Spec) (map[string]string, error) {
	p := map[string]string{
		"workloads":     strings.Join(c.Workloads, ","),
		"pattern":       c.Pattern,
		"pair_timeout":  c.PairTimeout.String(),
		"threshold":     strconv.FormatFloat(c.ThresholdPct, 'g', -1, 64) + "%",
		"outlier_pairs": strconv.Itoa(c.OutlierPairs),
		"outlier_time":  c.OutlierTime.String(),
		"figures_only":  strconv.FormatBool(c.FiguresOnly),
		"probe":         strconv.FormatBool(c.Probe),
		"rails":         strconv.FormatBool(c.Rails),
	}
	for _, sp := range specs {
		r, _, err := workloads.Resolve(sp, nil)
		if err != nil {
			return nil, err
		}
		for k, v := range r.Encode() {
			if k != "workload" {
				p[r.Workload+"."+k] = v
			}
		}
	}
	return p, nil
}

// CheckLaunch checks that the ranks can find rank 0: under a PMI
// launcher (getenv("PMI_FD") set), or with a coordinator or an existing
// rendezvous directory.
func (c *Config) CheckLaunch(world fabric.World, getenv func(string) string) error {
	// With --rails, rank 0 checks the pattern against each rail's ranks
	// once they have registered (their devices name the rails).
	if err := fabric.CheckPattern(c.Pattern, world.Size); err != nil && !c.Rails {
		return fmt.Errorf("--pattern: %w", err)
	}
	if getenv("PMI_FD") == "" && c.Coordinator == "" && c.Dir == "" {
		return fmt.Errorf("no way for the ranks to find rank 0 (this is rank %d of %d, %s): PMI_FD is unset (not under mpiexec or srun --mpi=pmi2): give --coordinator HOST:PORT or --rendezvous-dir DIR", world.Rank, world.Size, world.Launcher)
	}
	if c.Dir != "" {
		if fi, err := os.Stat(c.Dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("--rendezvous-dir %s: want an existing directory every host shares, one per run", c.Dir)
		}
	}
	return nil
}

// CheckOutputs makes sure rank 0 can write what it was asked to, before
// anything is measured.
func (c *Config) CheckOutputs() error {
	if err := c.Output.Check(); err != nil {
		return err
	}
	return heatmap.CheckDir(c.PlotDir)
}

// Specs are the points to run on every pair, one per workload, with the
// shared parameters that apply to it.
func (c *Config) Specs(shared point.Spec) []point.Spec {
	out := make([]point.Spec, 0, len(c.Workloads))
	for _, n := range c.Workloads {
		w, _ := catalog.Lookup(n)
		out = append(out, shared.Only(w))
	}
	return out
}

// MatrixMetrics are the workloads' matrix metrics (fabric.MatrixMetric),
// in order.
func (c *Config) MatrixMetrics() []string {
	metrics := make([]string, len(c.Workloads))
	for i, n := range c.Workloads {
		metrics[i] = MatrixMetric(n)
	}
	return metrics
}

// MatrixMetric is the metric rank 0 prints a matrix of, and checks for
// outliers, for a workload: p50 latency, or bandwidth.
func MatrixMetric(workload string) string {
	w, _ := catalog.Lookup(workload)
	return fabric.MatrixMetric(workload, w.Latency())
}

// DropResults says whether the pairs' full results are left out of a
// world of size ranks: when asked, and always beyond MaxFullResultRanks.
func (c *Config) DropResults(size int) bool {
	return c.FiguresOnly || size > MaxFullResultRanks
}
