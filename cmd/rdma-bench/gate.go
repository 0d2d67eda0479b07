//go:build cgo

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/gate"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

func init() {
	register("gate", "gate a candidate against a base: short runs of both alternated until every point is decided", runGate)
}

const gateUsage = `usage: rdma-bench gate [flags] [WORKLOAD:SIZE ...]

Measures a base and a candidate rdma-bench on the same device in short
single-point runs, alternated pair by pair (A B, then B A), until every
point is decided or the budget runs out; a decided point stops being
measured. Default points: %s.
Each run is "BIN run WORKLOAD --loopback -s SIZE -n N|-D SECONDS -o json
SIDE-ARGS" (HOST instead of --loopback with --host).

decisions, per point, at every --look-every pairs: fail when the whole
interval of the change is a regression and its estimate at least half the
threshold; pass when the whole interval is within the threshold; else
undecided (never read as "no regression"). The intervals' confidence keeps
the chance that a gate of a candidate no slower fails at --alpha.

exit status: 0 pass, 1 fail (a regression), 3 undecided, 2 bad input,
4 a measurement failed (the pairs so far are saved, partial), 130 interrupted
(saved, partial)

flags:
`

// gateFlags are the flags of gate.
type gateFlags struct {
	baseBin, candBin, baseArgs, candArgs         string
	baseBefore, baseAfter, candBefore, candAfter string
	baseEnv, candEnv                             []string
	host, failOn, method, format, outFile        string
	saveDir                                      string
	iters, lookEvery, maxPairs                   int
	duration, alpha                              float64
	budget, timeout                              time.Duration
}

func addGateFlags(fs *pflag.FlagSet, f *gateFlags) {
	fs.StringVar(&f.baseBin, "base-bin", "", "the base's rdma-bench binary (default: this one)")
	fs.StringVar(&f.candBin, "candidate-bin", "", "the candidate's rdma-bench binary (default: this one)")
	fs.StringVar(&f.baseArgs, "base-args", "", "extra run flags of the base, split at spaces, such as \"-I 0\"")
	fs.StringVar(&f.candArgs, "candidate-args", "", "extra run flags of the candidate, split at spaces")
	fs.StringArrayVar(&f.baseEnv, "base-env", nil, "NAME=VALUE added to the base's environment (repeatable), such as LD_LIBRARY_PATH=/opt/rdma-core/lib")
	fs.StringArrayVar(&f.candEnv, "candidate-env", nil, "NAME=VALUE added to the candidate's environment (repeatable)")
	fs.StringVar(&f.baseBefore, "base-before", "", "shell command run before every base run")
	fs.StringVar(&f.baseAfter, "base-after", "", "shell command run after every base run")
	fs.StringVar(&f.candBefore, "candidate-before", "", "shell command run before every candidate run (a qdisc, a sysctl)")
	fs.StringVar(&f.candAfter, "candidate-after", "", "shell command run after every candidate run")
	fs.StringVar(&f.host, "host", "", "measure against servers on this host (started beforehand, of a version that serves both sides) instead of --loopback")
	fs.IntVarP(&f.iters, "iters", "n", 3000, "timed iterations of a latency run")
	fs.Float64VarP(&f.duration, "duration", "D", 0.2, "seconds of a bandwidth run")
	fs.StringVar(&f.failOn, "fail-on", "lat.p50>+5%,bw<-5%", "thresholds: lat.p50>+N% for latency points, bw<-N% for bandwidth points")
	fs.Float64Var(&f.alpha, "alpha", 0.01, "the chance, at most, that a gate fails when the candidate is no slower (split over points and looks)")
	fs.IntVar(&f.lookEvery, "look-every", 10, "pairs between two looks at the points")
	fs.IntVar(&f.maxPairs, "max-pairs", 40, "the most pairs of a point (1..1000)")
	fs.DurationVar(&f.budget, "budget", 5*time.Minute, "the most time the gate may take, warm-up included")
	fs.StringVar(&f.method, "method", string(gate.Paired), "how a point's change is estimated: paired (per-pair log ratios) or unpaired (the two sides' runs)")
	fs.DurationVar(&f.timeout, "run-timeout", 2*time.Minute, "the most time one run may take")
	fs.StringVarP(&f.format, "output", "o", "table", "output format: table or json (the saved document)")
	fs.StringVar(&f.outFile, "output-file", "", "write the output to this file instead of standard output: "+outfile.Rules)
	fs.StringVar(&f.saveDir, "save-dir", filepath.Join("results", "gate"), "where the gate's document is saved (after every round of pairs)")
}

func runGate(ctx context.Context, args []string) error {
	fs := newFlagSet("gate")
	var f gateFlags
	addGateFlags(fs, &f)
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, gateUsage, strings.Join(gate.DefaultPoints, " "))
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := gateConfig(&f, fs.Args())
	if err != nil {
		return err
	}
	if f.format != "table" && f.format != "json" {
		return usageError("-o %s: want table or json", f.format)
	}
	dst, err := createOutput(f.outFile)
	if err != nil {
		return err
	}
	if err := report.CheckDir(f.saveDir); err != nil {
		dst.abort()
		return usageError("--save-dir %s: %v", f.saveDir, err)
	}
	doc, err := measureGate(ctx, cfg, &f)
	if doc == nil {
		dst.abort()
		var bad *badInput
		switch {
		case err == nil || errors.As(err, &bad):
		case ctx.Err() != nil:
			return &exitStatus{code: 130, msg: "interrupted: " + err.Error()}
		default: // the warm-up failed: nothing measured
			return &exitStatus{code: gate.ExitMeasurement, msg: err.Error()}
		}
		return err
	}
	var out strings.Builder
	if f.format == "json" {
		b, eerr := doc.Encode()
		if eerr != nil {
			dst.abort()
			return eerr
		}
		out.Write(b)
	} else {
		colour := f.outFile == "" && os.Getenv("NO_COLOR") == "" && isatty.IsTerminal(os.Stdout.Fd())
		if werr := gate.WriteTable(&out, doc, colour); werr != nil {
			dst.abort()
			return werr
		}
	}
	if cerr := dst.commit([]byte(out.String())); cerr != nil {
		return cerr
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return &exitStatus{code: 130, msg: "interrupted: " + err.Error()}
	case err != nil:
		return &exitStatus{code: gate.ExitMeasurement, msg: err.Error()}
	case doc.ExitCode != gate.ExitPass:
		return &exitStatus{code: doc.ExitCode}
	}
	return nil
}

// measureGate checks both sides, then runs the gate, saving its document
// after every round. The document is nil when nothing was measured.
func measureGate(ctx context.Context, cfg *gate.Config, f *gateFlags) (*gate.Document, error) {
	tmp, err := os.MkdirTemp("", "rdma-bench-gate-")
	if err != nil {
		return nil, fmt.Errorf("a directory for the sides' binaries: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, s := range []*gate.Side{&cfg.Base, &cfg.Candidate} {
		if err := gate.Snapshot(s, tmp); err != nil {
			return nil, err
		}
		v, err := gate.Version(ctx, s)
		if err != nil {
			var se *gate.SideError
			if errors.As(err, &se) {
				return nil, usageError("%v", err)
			}
			return nil, err
		}
		s.Version = v
	}
	now := time.Now()
	path := filepath.Join(f.saveDir, "gate-"+now.Format("20060102-150405")+".json")
	for i := 1; fileExists(path); i++ {
		path = filepath.Join(f.saveDir, fmt.Sprintf("gate-%s-%d.json", now.Format("20060102-150405"), i))
	}
	v := buildVersion()
	doc := &gate.Document{Tool: report.Tool{Name: "rdma-bench", Version: strings.TrimSpace(v.version + " " + v.note), Commit: v.commit}, StartedAt: now.UTC(), Args: os.Args[1:]}
	g := &gate.Gate{
		Config:   cfg,
		Runner:   &gate.Process{Target: cfg.Target, LatencyIters: cfg.LatencyIters, BandwidthSeconds: cfg.BandwidthSeconds, Timeout: f.timeout},
		Progress: os.Stderr,
		Save:     func(d *gate.Document) error { return saveGateDoc(path, d) },
	}
	doc, err = g.Run(ctx, doc)
	var be *gate.BudgetError
	var se *gate.SideError
	switch {
	case errors.As(err, &be):
		return nil, usageError("%v", err)
	case errors.As(err, &se) && doc == nil:
		return nil, usageError("%v", err)
	}
	if doc != nil {
		fmt.Fprintf(os.Stderr, "gate: saved %s\n", path)
	}
	return doc, err
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func saveGateDoc(path string, d *gate.Document) error {
	b, err := d.Encode()
	if err != nil {
		return err
	}
	return outfile.WriteFile(path, b)
}

// gateConfig builds the gate's configuration from its flags and points.
func gateConfig(f *gateFlags, args []string) (*gate.Config, error) {
	if len(args) == 0 {
		args = gate.DefaultPoints
	}
	cfg := &gate.Config{LatencyIters: f.iters, BandwidthSeconds: f.duration, Alpha: f.alpha,
		LookEvery: f.lookEvery, MaxPairs: f.maxPairs, Budget: f.budget, Method: gate.Method(f.method),
		Target: []string{"--loopback"}}
	for _, a := range args {
		p, err := gate.ParsePoint(a)
		if err != nil {
			return nil, usageError("%v", err)
		}
		cfg.Points = append(cfg.Points, p)
	}
	if f.host != "" {
		if strings.HasPrefix(f.host, "-") {
			return nil, usageError("--host %q: want a host name or address", f.host)
		}
		cfg.Target = []string{f.host}
	}
	th, err := compare.ParseThresholds(f.failOn)
	if err != nil {
		return nil, usageError("--fail-on: %v", err)
	}
	cfg.Thresholds = th
	if f.timeout <= 0 {
		return nil, usageError("--run-timeout %v: want a positive duration", f.timeout)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this binary: %w", err)
	}
	sides := []struct {
		s                 *gate.Side
		name, bin, args   string
		env               []string
		before, after     string
		binFlag, argsFlag string
	}{
		{&cfg.Base, "base", f.baseBin, f.baseArgs, f.baseEnv, f.baseBefore, f.baseAfter, "--base-bin", "--base-args"},
		{&cfg.Candidate, "candidate", f.candBin, f.candArgs, f.candEnv, f.candBefore, f.candAfter, "--candidate-bin", "--candidate-args"},
	}
	for _, sd := range sides {
		bin := sd.bin
		if bin == "" {
			bin = self
		} else if fi, err := os.Stat(bin); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return nil, usageError("%s %s: not an executable file", sd.binFlag, bin)
		}
		for _, e := range sd.env {
			if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
				return nil, usageError("--%s-env %q: want NAME=VALUE", sd.name, e)
			}
		}
		*sd.s = gate.Side{Name: sd.name, Bin: bin, Args: strings.Fields(sd.args), Env: sd.env, Before: sd.before, After: sd.after}
		if err := gateSideArgs(sd.argsFlag, sd.s.Args); err != nil {
			return nil, err
		}
	}
	if err := cfg.Check(); err != nil {
		return nil, usageError("%v", err)
	}
	return cfg, nil
}

// gateSideArgs refuses side flags that would change what is measured
// under the gate's feet: the point, the output, the target.
func gateSideArgs(flag string, args []string) error {
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "-s", "--size", "-o", "--output", "--output-file", "-n", "--iters", "-D", "--duration", "--loopback",
			"--repeat", "--rate", "-a", "--all", "--save", "--plot", "--samples", "--report-interval":
			return usageError("%s: %s is the gate's to set (the point's size, the run's length, the output): "+
				"give points as WORKLOAD:SIZE and lengths with -n and -D", flag, a)
		}
	}
	return nil
}
