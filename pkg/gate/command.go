package gate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"
	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// badInput builds an error about the command's input (a flag, a side's
// binary): nothing was measured.
func badInput(format string, a ...any) error { return inputerr.New(format, a...) }

// Options are the gate command's settings, as its flags name them.
type Options struct {
	BaseBin, CandBin, BaseArgs, CandArgs         string
	BaseBefore, BaseAfter, CandBefore, CandAfter string
	BaseEnv, CandEnv                             []string
	Host, FailOn, Method                         string
	SaveDir                                      string
	Iters, FirstLook, MaxPairs                   int
	LookGrowth                                   float64
	// Workers keeps each side's binary running between its runs (Pool),
	// WorkerRounds rounds at a time.
	Workers      bool
	WorkerRounds int
	// Overlap makes each pair's two runs overlap where the runner can
	// (Pool.Overlaps).
	Overlap         bool
	Duration, Alpha float64
	Budget, Timeout time.Duration
	// Format is the output's, one of [Formats]; OutFile its file ("" or
	// "-": standard output).
	Format, OutFile string
}

// Config builds the gate's configuration from the options and the points
// (WORKLOAD:SIZE; none: [DefaultPoints]). A side without a binary runs
// this one. Errors the options cause are marked as package inputerr does.
func (o *Options) Config(points []string) (*Config, error) {
	if len(points) == 0 {
		points = DefaultPoints
	}
	cfg := &Config{LatencyIters: o.Iters, BandwidthSeconds: o.Duration, Alpha: o.Alpha,
		FirstLook: o.FirstLook, LookGrowth: o.LookGrowth, MaxPairs: o.MaxPairs, WorkerRounds: o.WorkerRounds, Budget: o.Budget, Method: Method(o.Method),
		Target: []string{"--loopback"}}
	for _, a := range points {
		p, err := ParsePoint(a)
		if err != nil {
			return nil, badInput("%v", err)
		}
		cfg.Points = append(cfg.Points, p)
	}
	if o.Host != "" {
		if strings.HasPrefix(o.Host, "-") {
			return nil, badInput("--host %q: want a host name or address", o.Host)
		}
		cfg.Target = []string{o.Host}
	}
	th, err := compare.ParseThresholds(o.FailOn)
	if err != nil {
		return nil, badInput("--fail-on: %v", err)
	}
	cfg.Thresholds = th
	if o.Timeout <= 0 {
		return nil, badInput("--run-timeout %v: want a positive duration", o.Timeout)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this binary: %w", err)
	}
	sides := []struct {
		s                 *Side
		name, bin, args   string
		env               []string
		before, after     string
		binFlag, argsFlag string
	}{
		{&cfg.Base, "base", o.BaseBin, o.BaseArgs, o.BaseEnv, o.BaseBefore, o.BaseAfter, "--base-bin", "--base-args"},
		{&cfg.Candidate, "candidate", o.CandBin, o.CandArgs, o.CandEnv, o.CandBefore, o.CandAfter, "--candidate-bin", "--candidate-args"},
	}
	for _, sd := range sides {
		bin := sd.bin
		if bin == "" {
			bin = self
		} else if fi, err := os.Stat(bin); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return nil, badInput("%s %s: not an executable file", sd.binFlag, bin)
		}
		for _, e := range sd.env {
			if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
				return nil, badInput("--%s-env %q: want NAME=VALUE", sd.name, e)
			}
		}
		*sd.s = Side{Name: sd.name, Bin: bin, Args: strings.Fields(sd.args), Env: sd.env, Before: sd.before, After: sd.after}
		if err := sideArgs(sd.argsFlag, sd.s.Args); err != nil {
			return nil, err
		}
	}
	if err := cfg.Check(); err != nil {
		return nil, badInput("%v", err)
	}
	return cfg, nil
}

// sideArgs refuses side flags that would change what is measured under
// the gate's feet: the point, the output, the target.
func sideArgs(flag string, args []string) error {
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "-s", "--size", "-o", "--output", "--output-file", "-n", "--iters", "-D", "--duration", "--loopback",
			"--repeat", "--rate", "-a", "--all", "--save", "--plot", "--samples", "--report-interval":
			return badInput("%s: %s is the gate's to set (the point's size, the run's length, the output): "+
				"give points as WORKLOAD:SIZE and lengths with -n and -D", flag, a)
		}
	}
	return nil
}

// Invocation is what the document records of the gate's own run.
type Invocation struct {
	Tool report.Tool
	Args []string // the command line after the program's name
}

// Measure checks both sides, then runs the gate, saving its document in
// o.SaveDir after every round. Progress and the saved document's path go
// to progress. The document is nil when nothing was measured; an error
// with it that is marked as package inputerr does is the input's.
func Measure(ctx context.Context, cfg *Config, o *Options, inv Invocation, progress io.Writer) (*Document, error) {
	tmp, err := os.MkdirTemp("", "rdma-bench-gate-")
	if err != nil {
		return nil, fmt.Errorf("a directory for the sides' binaries: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, s := range []*Side{&cfg.Base, &cfg.Candidate} {
		if err := Snapshot(s, tmp); err != nil {
			return nil, err
		}
		v, err := Version(ctx, s)
		if err != nil {
			var se *SideError
			if errors.As(err, &se) {
				return nil, badInput("%v", err)
			}
			return nil, err
		}
		s.Version = v
	}
	now := time.Now()
	path := filepath.Join(o.SaveDir, "gate-"+now.Format("20060102-150405")+".json")
	for i := 1; exists(path); i++ {
		path = filepath.Join(o.SaveDir, fmt.Sprintf("gate-%s-%d.json", now.Format("20060102-150405"), i))
	}
	doc := &Document{Tool: inv.Tool, StartedAt: now.UTC(), Args: inv.Args}
	pool := &Pool{Process: Process{Target: cfg.Target, LatencyIters: cfg.LatencyIters, BandwidthSeconds: cfg.BandwidthSeconds,
		Timeout: o.Timeout}, NoWorkers: !o.Workers, NoOverlap: !o.Overlap}
	if err := pool.Start(ctx, &cfg.Base, &cfg.Candidate); err != nil {
		return nil, err
	}
	defer pool.Close()
	for _, s := range []*Side{&cfg.Base, &cfg.Candidate} {
		if s.RunsAsWhy != "" && o.Workers {
			fmt.Fprintf(progress, "gate: %s\n", s.RunsAsWhy)
			break
		}
	}
	if ok, why := pool.Overlaps(); !ok && o.Overlap && o.Workers {
		fmt.Fprintf(progress, "gate: pairs not overlapped: %s\n", why)
	}
	g := &Gate{
		Config:   cfg,
		Runner:   pool,
		Progress: progress,
		Save:     func(d *Document) error { return save(path, d) },
	}
	doc, err = g.Run(ctx, doc)
	var be *BudgetError
	var se *SideError
	switch {
	case errors.As(err, &be):
		return nil, badInput("%v", err)
	case errors.As(err, &se) && doc == nil:
		return nil, badInput("%v", err)
	}
	if doc != nil {
		fmt.Fprintf(progress, "gate: saved %s\n", path)
	}
	return doc, err
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func save(path string, d *Document) error {
	b, err := d.Encode()
	if err != nil {
		return err
	}
	return outfile.WriteFile(path, b)
}

// Formats are the gate's output formats.
var Formats = []string{"table", "json", "markdown", "junit"}

// WriteOutput writes the document to w as format says: "table" (coloured
// with colour), "json" (the saved document), "markdown" or "junit" (for a
// CI's summary and test report).
func WriteOutput(w io.Writer, d *Document, format string, colour bool) error {
	switch format {
	case "json":
		b, err := d.Encode()
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case "table":
		return WriteTable(w, d, colour)
	case "markdown":
		return WriteMarkdown(w, d)
	case "junit":
		return WriteJUnit(w, d)
	}
	return badInput("-o %s: want %s", format, strings.Join(Formats, ", "))
}

// ExitStatus is the gate command's exit status after [Measure]: the
// document's code, ExitMeasurement when a run failed or 130 when ctx was
// cancelled, with a message for the last two.
func ExitStatus(ctx context.Context, doc *Document, err error) (int, string) {
	switch {
	case err != nil && ctx.Err() != nil:
		return 130, "interrupted: " + err.Error()
	case err != nil:
		return ExitMeasurement, err.Error()
	case doc != nil:
		return doc.ExitCode, ""
	}
	return ExitPass, ""
}
