package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

// target is where the points run: a server's host, or both sides here.
type target struct {
	host     string
	loopback bool
}

// resolved are an invocation's points, checked, with the device they use.
type resolved struct {
	specs  []workloads.Spec
	device *report.Device
}

// resolve checks every point before anything is created or connected:
// the parameters, the CPUs, and, for RDMA points, the local device (which
// also gives a UD message its default size, the MTU). A UD point of a
// sweep above the MTU is dropped with a note. Bad input is a usage error.
func (b *benchFlags) resolve(specs []workloads.Spec, at target, sweep bool) (resolved, error) {
	var out resolved
	type probeKey struct {
		transport string
		cm        bool
	}
	probed := map[probeKey]workloads.DeviceLimits{}
	noted := map[string]bool{}
	note := func(n string) {
		if !noted[n] {
			noted[n] = true
			fmt.Fprintf(os.Stderr, "rdma-bench: note: %s\n", n)
		}
	}
	for _, sp := range specs {
		r, _, err := sp.Resolve(nil)
		if err != nil {
			return out, usageError("%v", err)
		}
		w, _ := workloads.Lookup(r.Workload)
		sides := 1
		if at.loopback {
			sides = 2
		}
		if err := b.local.CheckCPUs(sides * max(r.Threads, 1)); err != nil {
			return out, usageError("%v", err)
		}
		if w.Family == workloads.RDMA {
			key := probeKey{r.Transport, r.RDMACM}
			lim, ok := probed[key]
			if !ok {
				dev, l, err := workloads.Probe(r, b.local)
				if err != nil {
					return out, deviceError(err)
				}
				probed[key], lim = l, l
				if out.device == nil {
					out.device = dev
				}
			}
			if sweep && r.Transport == "UD" && r.Size > b.pathMTU(lim) {
				note(fmt.Sprintf("%s over UD: the sweep stops at the MTU, %d bytes", w.Name, b.pathMTU(lim)))
				continue
			}
			var notes []string
			if r, notes, err = sp.Resolve(&lim); err != nil {
				return out, usageError("%v", err)
			}
			for _, n := range notes {
				note(n)
			}
			if err := workloads.CheckDevice(r, b.local, w, lim); err != nil {
				return out, usageError("%v", err)
			}
		}
		out.specs = append(out.specs, r)
	}
	return out, nil
}

func (b *benchFlags) pathMTU(l workloads.DeviceLimits) int {
	if b.local.MTU != 0 {
		return b.local.MTU
	}
	return l.ActiveMTU
}

// deviceError explains a device that cannot be opened; with none at all,
// how to get one.
func deviceError(err error) error {
	if errors.Is(err, verbs.ErrNoDevice) {
		return errors.New(noDeviceHelp)
	}
	return err
}

// runPoints measures every point in order and writes what was measured,
// even when a point failed or Ctrl-C interrupted: a failed run stops the
// sequence; a point with too little data is written, noted, and makes the
// exit status 1 once the rest has run.
func runPoints(ctx context.Context, b *benchFlags, o *outputFlags, pts resolved, at target) error {
	if err := o.open(); err != nil {
		return err
	}
	doc := newDocument()
	doc.Device = pts.device
	b.local.Progress = os.Stderr
	var runErr error
	thin := 0
	for i, sp := range pts.specs {
		res, err := b.measure(ctx, sp, at, i+1 < len(pts.specs))
		if res != nil {
			doc.Results = append(doc.Results, res)
		}
		if err != nil {
			runErr = fmt.Errorf("%s %d bytes: %w", sp.Workload, sp.Size, err)
			break
		}
		if res.Status != report.StatusOK {
			thin++
			fmt.Fprintf(os.Stderr, "rdma-bench: %s %d bytes: %s: %s\n", sp.Workload, sp.Size, res.Status, res.Reason)
		}
		if len(pts.specs) > 1 {
			fmt.Fprintf(os.Stderr, "[%d/%d] %s %d bytes done\n", i+1, len(pts.specs), sp.Workload, sp.Size)
		}
	}
	werr := o.finish(doc)
	switch {
	case runErr != nil:
		return errors.Join(runErr, werr)
	case werr != nil:
		return werr
	case thin > 0:
		return fmt.Errorf("%d of %d points have too little data for a figure (see the notes above)", thin, len(pts.specs))
	}
	return nil
}

// measure runs one point against the server, or here (loopback); more
// tells a one-shot server that another point follows.
func (b *benchFlags) measure(ctx context.Context, sp workloads.Spec, at target, more bool) (*report.Result, error) {
	if at.loopback {
		return workloads.Loopback(ctx, sp, b.local)
	}
	return workloads.RunClient(ctx, sp, b.local, at.host, b.port, more)
}
