//go:build cgo

package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/fabric"
)

// planSetup is what --plan counts for setting up one point (device,
// queue pairs, connection) beside its -D.
const planSetup = time.Second

// planAllRounds: --plan lists every round of a schedule with at most
// this many, else the first planShownRounds.
const (
	planAllRounds   = 32
	planShownRounds = 3
)

// writePlan is --plan: the schedule for the world's size (--world-size,
// or the launcher's) and its time, measuring nothing.
func (f *fabricFlags) writePlan(w io.Writer) error {
	n := f.size
	if !f.fs.Changed("world-size") {
		world, err := fabric.DetectWorld(os.Getenv, f.worldFlags())
		if err != nil {
			return usageError("--plan needs the number of ranks: give --world-size N (%v)", err)
		}
		n = world.Size
	} else if err := fabric.CheckWorldSize(n, "--world-size"); err != nil {
		return usageError("%v", err)
	}
	rounds, err := fabric.Schedule(f.pattern, n)
	if err != nil {
		return usageError("%v", err)
	}
	perPair, how := f.planPerPair()
	if _, err := fmt.Fprintf(w, "per pair: %s (%s)\n", perPair, how); err != nil {
		return err
	}
	shown := -1
	if len(rounds) > planAllRounds {
		shown = planShownRounds
	}
	return fabric.WritePlan(w, f.pattern, rounds, perPair, shown)
}

// planPerPair is the time --plan counts for one pair, and where it comes
// from.
func (f *fabricFlags) planPerPair() (time.Duration, string) {
	switch {
	case f.pairTime > 0:
		return f.pairTime, "--pair-time"
	case f.b.spec.Duration > 0:
		k := len(f.names)
		what := fmt.Sprintf("%d workloads x ", k)
		if k == 1 {
			what = "1 workload: "
		}
		return time.Duration(k) * (f.b.spec.Duration + planSetup),
			fmt.Sprintf("%s(-D %s + %s of set-up); give --pair-time to change", what, f.b.spec.Duration, planSetup)
	}
	return f.pairTimeout, "--pair-timeout, the most a pair may take; give -D or --pair-time for an estimate"
}
