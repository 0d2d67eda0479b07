package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/expect"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

// Points are an invocation's points, checked, with the device they use
// and this side's settings, placed (NUMA) for that device.
type Points struct {
	Specs  []point.Resolved
	Device *report.Device
	Local  workloads.Local
}

// Resolve plans the points of specs for this side's settings, local (the
// flags'), checking every one before anything is created or connected:
// the parameters, the CPUs, and, for RDMA points, the local device (which
// also gives a UD message its default size, the MTU). A UD point of a
// sweep above the MTU is dropped with a note on log. The Points carry
// local placed for the device (NUMA). Bad input is marked as such
// (package inputerr); a device that cannot be opened gives the device's
// error.
func Resolve(local workloads.Local, specs []point.Spec, at Target, sweep bool, runs int, log io.Writer) (Points, error) {
	var out Points
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
			fmt.Fprintf(log, "rdma-bench: note: %s\n", n)
		}
	}
	for _, sp := range specs {
		r, _, err := workloads.Resolve(sp, nil)
		if err != nil {
			return out, inputError("%v", err)
		}
		w, _ := catalog.Lookup(r.Workload)
		sides := 1
		if at.Loopback {
			sides = 2
		}
		if err := local.CheckCPUs(sides * max(r.Threads, 1)); err != nil {
			return out, inputError("%v", err)
		}
		if w.Family == catalog.RDMA {
			key := probeKey{r.Transport, r.RDMACM, workloads.SendOps(r)}
			lim, ok := probed[key]
			if !ok {
				dev, l, err := workloads.Probe(r, local)
				if err != nil {
					return out, err
				}
				probed[key], lim = l, l
				if out.Device == nil {
					out.Device = dev
				}
			}
			if sweep && r.Transport == "UD" && r.Size > pathMTU(local, lim) {
				note(fmt.Sprintf("%s over UD: the sweep stops at the MTU, %d bytes", w.Name, pathMTU(local, lim)))
				continue
			}
			var notes []string
			if r, notes, err = workloads.Resolve(sp, &lim); err != nil {
				return out, inputError("%v", err)
			}
			for _, n := range notes {
				note(n)
			}
			if err := workloads.CheckDevice(r, local, w, lim); err != nil {
				return out, inputError("%v", err)
			}
		}
		// Memory is checked before anything is allocated: this side's,
		// and the server's too in loopback (one process).
		need := workloads.MemoryOf(r, true, runs)
		if at.Loopback {
			srv := workloads.MemoryOf(r, false, 1)
			need.Pinned, need.Total, need.HugePages = need.Pinned+srv.Pinned, need.Total+srv.Total, need.HugePages+srv.HugePages
		}
		if err := local.CheckMemory(need, "client"); err != nil {
			return out, inputError("%s %d bytes: %v", r.Workload, r.Size, err)
		}
		out.Specs = append(out.Specs, r)
	}
	dev := ""
	if out.Device != nil {
		dev = out.Device.Name
	}
	var err error
	out.Local, err = place(local, dev)
	return out, err
}

// place decides where this side's measuring threads and buffers go, for
// the device named dev ("" for none): bad input when an explicit
// --numa-node cannot be honoured.
func place(local workloads.Local, dev string) (workloads.Local, error) {
	p, err := workloads.Place(local, dev)
	if err != nil {
		return local, inputError("%v", err)
	}
	local.Placement = &p
	return local, nil
}

func pathMTU(local workloads.Local, l workloads.DeviceLimits) int {
	if local.MTU != 0 {
		return local.MTU
	}
	return l.ActiveMTU
}

// Repeat is run's and suite's --repeat and --label.
type Repeat struct {
	N     int
	Label string
}

// Register adds --repeat and --label to fs.
func (r *Repeat) Register(fs *pflag.FlagSet) {
	fs.IntVar(&r.N, "repeat", 1, "measure every point N times (1..1000), interleaved: round 1 of every point, then round 2, ...")
	fs.StringVar(&r.Label, "label", "", "name this side of a comparison (a firmware version, say): kept in the document and its file name")
}

// Check refuses a --repeat or --label out of bounds.
func (r Repeat) Check() error {
	if r.N < 1 || r.N > 1000 {
		return inputError("--repeat %d: must be 1..1000", r.N)
	}
	if len(r.Label) > 64 || strings.IndexFunc(r.Label, func(c rune) bool { return !unicode.IsPrint(c) || c == '/' }) >= 0 {
		return inputError("--label %q: want up to 64 printable characters, no '/'", r.Label)
	}
	return nil
}

// Plan is what one invocation measures: its points, where, how often,
// and where what they measure goes.
type Plan struct {
	Points Points
	At     Target
	Repeat Repeat
	Output *Output
	Doc    *report.Document // NewDocument's: the results go in, then out through Output
	Log    io.Writer        // notes, warnings and progress (standard error)
	Expect *Expect          // --expect, checked (CheckPlan); nil for none
}

// Run measures every point p.Repeat.N times, in rounds (round 1 of every
// point, then round 2, ...) so that a drift of the machine hits every
// point alike, and writes what was measured, even when a run failed or
// ctx was cancelled: a failed run stops the sequence; a run with too
// little data is written, noted, and makes an error once the rest has
// run.
func Run(ctx context.Context, p Plan) error {
	o, rep, log, local := p.Output, p.Repeat, p.Log, p.Points.Local
	if err := o.Open(); err != nil {
		return err
	}
	doc := p.Doc
	doc.Device, doc.Label, doc.Repeat = p.Points.Device, rep.Label, rep.N
	doc.Host.Placement = local.Placement.Doc()
	local.Progress = log
	local.KeepSamples = o.Samples != ""
	specs := p.Points.Specs
	runs := make([][]*report.Result, len(specs))
	total := len(specs) * rep.N
	o.Record(startRecord(doc, total))
	var runErr error
	thin, k := 0, 0
rounds:
	for round := 1; round <= rep.N; round++ {
		if o.Streaming() {
			local.Intervals = func(r *document.StreamInterval) { r.Run = round; o.Record(r) }
		}
		for i, sp := range specs {
			k++
			what := fmt.Sprintf("%s %d bytes", sp.Workload, sp.Size)
			if rep.N > 1 {
				what += fmt.Sprintf(" (run %d of %d)", round, rep.N)
			}
			started := time.Now().UTC()
			res, err := measure(ctx, local, sp, p.At, k < total)
			if res != nil {
				res.StartedAt = started
				runs[i] = append(runs[i], res)
				if pr := pointRecord(p, res, round); pr != nil {
					o.Record(pr)
				}
			}
			if err != nil {
				runErr = fmt.Errorf("%s: %w", what, err)
				break rounds
			}
			if c := res.Counters; c != nil && c.Clean == nil {
				fmt.Fprintf(log, "rdma-bench: warning: %s: %s\n", what, c.Verdict)
			}
			if res.Status != report.StatusOK {
				thin++
				fmt.Fprintf(log, "rdma-bench: %s: %s: %s\n", what, res.Status, res.Reason)
			}
			if total > 1 {
				fmt.Fprintf(log, "[%d/%d] %s done\n", k, total, what)
			}
		}
	}
	for i, rs := range runs {
		if len(rs) == 0 && runErr != nil {
			doc.Results = append(doc.Results, workloads.NotReached(specs[i].Spec, fmt.Sprintf("not measured: the run stopped before this point (%v)", runErr)))
			continue
		}
		if m := report.Merge(rs); m != nil {
			if runErr != nil && len(rs) < rep.N {
				markShort(m, len(rs), rep.N, runErr)
			}
			doc.Results = append(doc.Results, m)
		}
	}
	failed := p.Expect.judge(doc.Results, linkRate(doc.Device), func(n string) { fmt.Fprintf(log, "rdma-bench: warning: %s\n", n) })
	werr := o.Finish(doc, log)
	var expErr error
	if len(failed) > 0 {
		what := "expectation"
		if len(failed) > 1 {
			what += "s"
		}
		expErr = fmt.Errorf("%d %s failed: %s", len(failed), what, strings.Join(failed, "; "))
	}
	switch {
	case runErr != nil:
		return errors.Join(runErr, werr, expErr)
	case werr != nil:
		return errors.Join(werr, expErr)
	case thin > 0:
		return errors.Join(fmt.Errorf("%d of %d runs have too little data for a figure (see the notes above)", thin, total), expErr)
	}
	return expErr
}

// linkRate is the port's rate the expectations' %link takes; 0 when
// unknown or without a device.
func linkRate(d *report.Device) float64 {
	if d == nil {
		return 0
	}
	return d.LinkRateGbps
}

// startRecord opens a streamed document: doc's context, and how many
// point records should follow.
func startRecord(doc *report.Document, runs int) *document.StreamStart {
	return &document.StreamStart{Type: document.RecordStart, SchemaVersion: document.SchemaVersion,
		Tool: doc.Tool, Host: doc.Host, Device: doc.Device, Label: doc.Label, Repeat: max(doc.Repeat, 1),
		StartedAt: doc.StartedAt, Args: doc.Args, Runs: runs}
}

// pointRecord is the streamed record of one run of a point of p, with the
// expectations' verdicts on that run alone; nil when p's output streams
// nothing, or (said on its log) when the result cannot be converted.
func pointRecord(p Plan, res *report.Result, run int) *document.StreamPoint {
	if !p.Output.Streaming() {
		return nil
	}
	r, err := report.ResultRecord(res)
	if err != nil {
		fmt.Fprintf(p.Log, "rdma-bench: warning: %s %d bytes: no point record: %v\n", res.Workload, res.SizeBytes, err)
		return nil
	}
	if p.Expect != nil {
		r.Expectations = expect.Check(p.Expect.List, r, linkRate(p.Points.Device))
	}
	return &document.StreamPoint{Type: document.RecordPoint, Run: run, Of: p.Repeat.N, Result: r}
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
func measure(ctx context.Context, local workloads.Local, sp point.Resolved, at Target, more bool) (*report.Result, error) {
	if at.Loopback {
		return workloads.Loopback(ctx, sp, local)
	}
	return workloads.RunClient(ctx, sp, local, at.Host, at.Port, more)
}

// NewDocument starts the report of one invocation of tool, run with
// args.
func NewDocument(tool report.Tool, args []string) *report.Document {
	return &report.Document{
		Tool:      tool,
		Host:      workloads.ThisHost(),
		StartedAt: time.Now().UTC(),
		Args:      args,
	}
}
