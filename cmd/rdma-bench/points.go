//go:build cgo

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/pflag"

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
func (b *benchFlags) resolve(specs []workloads.Spec, at target, sweep bool, runs int) (resolved, error) {
	var out resolved
	type probeKey struct {
		transport string
		cm        bool
		ops       verbs.SendOps // the extended API's probe is per operation
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
			key := probeKey{r.Transport, r.RDMACM, r.SendOps()}
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
		// Memory is checked before anything is allocated: this side's,
		// and the server's too in loopback (one process).
		need := r.Memory(true, runs)
		if at.loopback {
			srv := r.Memory(false, 1)
			need.Pinned, need.Total, need.HugePages = need.Pinned+srv.Pinned, need.Total+srv.Total, need.HugePages+srv.HugePages
		}
		if err := b.local.CheckMemory(need, "client"); err != nil {
			return out, usageError("%s %d bytes: %v", r.Workload, r.Size, err)
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

// deviceError explains a device that cannot be opened: with none at all,
// how to get one; a device, port or GID index that does not exist is bad
// input.
func deviceError(err error) error {
	switch {
	case errors.Is(err, verbs.ErrNoDevice):
		return errors.New(noDeviceHelp)
	case errors.Is(err, verbs.ErrNoSuchDevice), errors.Is(err, verbs.ErrNoSuchPort), errors.Is(err, verbs.ErrNoSuchGID):
		return usageError("%v", err)
	}
	return err
}

// repeatFlags are run's and suite's --repeat and --label.
type repeatFlags struct {
	n     int
	label string
}

func addRepeatFlags(fs *pflag.FlagSet, r *repeatFlags) {
	fs.IntVar(&r.n, "repeat", 1, "measure every point N times (1..1000), interleaved: round 1 of every point, then round 2, ...")
	fs.StringVar(&r.label, "label", "", "name this side of a comparison (a firmware version, say): kept in the document and its file name")
}

func (r repeatFlags) check() error {
	if r.n < 1 || r.n > 1000 {
		return usageError("--repeat %d: must be 1..1000", r.n)
	}
	if len(r.label) > 64 || strings.IndexFunc(r.label, func(c rune) bool { return !unicode.IsPrint(c) || c == '/' }) >= 0 {
		return usageError("--label %q: want up to 64 printable characters, no '/'", r.label)
	}
	return nil
}

// runPoints measures every point rep.n times, in rounds (round 1 of every
// point, then round 2, ...) so that a drift of the machine hits every
// point alike, and writes what was measured, even when a run failed or
// Ctrl-C interrupted: a failed run stops the sequence; a run with too
// little data is written, noted, and makes the exit status 1 once the
// rest has run.
func runPoints(ctx context.Context, b *benchFlags, o *outputFlags, pts resolved, at target, rep repeatFlags) error {
	if err := o.open(); err != nil {
		return err
	}
	doc := newDocument()
	doc.Device, doc.Label, doc.Repeat = pts.device, rep.label, rep.n
	b.local.Progress = os.Stderr
	b.local.KeepSamples = o.samples != ""
	runs := make([][]*report.Result, len(pts.specs))
	total := len(pts.specs) * rep.n
	var runErr error
	thin, k := 0, 0
rounds:
	for round := 1; round <= rep.n; round++ {
		for i, sp := range pts.specs {
			k++
			what := fmt.Sprintf("%s %d bytes", sp.Workload, sp.Size)
			if rep.n > 1 {
				what += fmt.Sprintf(" (run %d of %d)", round, rep.n)
			}
			started := time.Now().UTC()
			res, err := b.measure(ctx, sp, at, k < total)
			if res != nil {
				res.StartedAt = started
				runs[i] = append(runs[i], res)
			}
			if err != nil {
				runErr = fmt.Errorf("%s: %w", what, err)
				break rounds
			}
			if c := res.Counters; c != nil && c.Clean == nil {
				fmt.Fprintf(os.Stderr, "rdma-bench: warning: %s: %s\n", what, c.Verdict)
			}
			if res.Status != report.StatusOK {
				thin++
				fmt.Fprintf(os.Stderr, "rdma-bench: %s: %s: %s\n", what, res.Status, res.Reason)
			}
			if total > 1 {
				fmt.Fprintf(os.Stderr, "[%d/%d] %s done\n", k, total, what)
			}
		}
	}
	for _, rs := range runs {
		if m := report.Merge(rs); m != nil {
			if runErr != nil && len(rs) < rep.n {
				markShort(m, len(rs), rep.n, runErr)
			}
			doc.Results = append(doc.Results, m)
		}
	}
	werr := o.finish(doc)
	switch {
	case runErr != nil:
		return errors.Join(runErr, werr)
	case werr != nil:
		return werr
	case thin > 0:
		return fmt.Errorf("%d of %d runs have too little data for a figure (see the notes above)", thin, total)
	}
	return nil
}

// markShort marks partial a point that a failure or an interruption left
// with fewer runs than --repeat asked for, though each of its runs is
// whole, so that compare, plot and report refuse it without
// --allow-partial.
func markShort(m *report.Result, got, want int, cause error) {
	why := fmt.Sprintf("%d of %d runs measured: %v", got, want, cause)
	if m.Status == report.StatusPartial && m.Reason != "" {
		why = m.Reason + "; " + why
	}
	m.Status, m.Reason = report.StatusPartial, why
}

// measure runs one point against the server, or here (loopback); more
// tells a one-shot server that another point follows.
func (b *benchFlags) measure(ctx context.Context, sp workloads.Spec, at target, more bool) (*report.Result, error) {
	if at.loopback {
		return workloads.Loopback(ctx, sp, b.local)
	}
	return workloads.RunClient(ctx, sp, b.local, at.host, b.port, more)
}
