//go:build cgo

package measure

import (
	"fmt"
	"io"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

// PlanPairTime is the time a plan counts for one pair of the workloads
// with the parameters of spec (-D or -n, --warmup), each workload's
// defaults filled in as a run would.
func (c *Config) PlanPairTime(spec point.Spec) (fabric.PairTime, error) {
	var work []fabric.PairWork
	for _, name := range c.Workloads {
		s := spec
		s.Workload = name
		r, _, err := workloads.Resolve(s, nil)
		if err != nil {
			return fabric.PairTime{}, fmt.Errorf("%s: %w", name, err)
		}
		w, err := catalog.Lookup(name)
		if err != nil {
			return fabric.PairTime{}, err
		}
		work = append(work, fabric.PairWork{Name: name, Latency: w.Latency(), Duration: r.Duration, Iterations: r.Iterations, Warmup: r.Warmup})
	}
	return fabric.EstimatePairTime(work, fabric.PairCost{PairTime: c.PairTime, Latency: c.PlanLatency, Setup: c.PlanSetup, PairTimeout: c.PairTimeout}), nil
}

// WritePlan writes what --plan prints, measuring nothing: the schedule
// for the world's size (flags.Size when set, else the launcher's, read
// through getenv) and its time, for points of the given duration. A
// size it cannot tell or take is bad input (marked by package inputerr).
func (c *Config) WritePlan(w io.Writer, getenv func(string) string, flags fabric.Flags, spec point.Spec) error {
	n := flags.Size
	if !flags.SizeSet {
		world, err := fabric.DetectWorld(getenv, flags)
		if err != nil {
			return inputerr.Wrap(fmt.Errorf("--plan needs the number of ranks: give --world-size N (%w)", err))
		}
		n = world.Size
	} else if err := fabric.CheckWorldSize(n, "--world-size"); err != nil {
		return inputerr.Wrap(err)
	}
	if c.Rails {
		return inputerr.New("--plan --rails: the rails are known only once the ranks have registered (their devices name them); the rails' rounds run at once, so plan one rail: --plan --world-size RANKS-A-RAIL")
	}
	rounds, err := fabric.Schedule(c.Pattern, n)
	if err != nil {
		return inputerr.Wrap(err)
	}
	pt, err := c.PlanPairTime(spec)
	if err != nil {
		return inputerr.Wrap(err)
	}
	if err := fabric.WriteSweepPlan(w, c.Pattern, rounds, pt, c.PlanSync); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "%s, if the sweep finds any (--outlier-time)\n", c.afterSweep()); err != nil {
		return fmt.Errorf("write plan: %w", err)
	}
	return nil
}

// afterSweep says what follows the sweep's rounds and how long it may
// take, as rank 0's first line and --plan state it.
func (c *Config) afterSweep() string {
	if c.Probe {
		return "a probe: one round trip a pair, no re-measurement"
	}
	return fmt.Sprintf("then at most %s re-measuring the suspects", c.OutlierTime)
}
