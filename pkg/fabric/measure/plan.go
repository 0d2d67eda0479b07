//go:build cgo

package measure

import (
	"fmt"
	"io"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"

	"github.com/rdma-bench/rdma-bench/pkg/fabric"
)

// PlanPairTime is the time a plan counts for one pair, given the points'
// duration (-D; 0 when none).
func (c *Config) PlanPairTime(duration time.Duration) fabric.PairTime {
	return fabric.EstimatePairTime(c.PairTime, duration, len(c.Workloads), c.PairTimeout)
}

// WritePlan writes what --plan prints, measuring nothing: the schedule
// for the world's size (flags.Size when set, else the launcher's, read
// through getenv) and its time, for points of the given duration. A
// size it cannot tell or take is bad input (marked by package inputerr).
func (c *Config) WritePlan(w io.Writer, getenv func(string) string, flags fabric.Flags, duration time.Duration) error {
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
	if err := fabric.WriteSweepPlan(w, c.Pattern, rounds, c.PlanPairTime(duration)); err != nil {
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
