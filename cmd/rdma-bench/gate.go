//go:build cgo

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"
	"github.com/rdma-bench/rdma-bench/internal/outfile"
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

// gateFlags are the flags of gate: the gate's options and its output.
type gateFlags struct {
	gate.Options
	format, outFile string
}

func addGateFlags(fs *pflag.FlagSet, f *gateFlags) {
	fs.StringVar(&f.BaseBin, "base-bin", "", "the base's rdma-bench binary (default: this one)")
	fs.StringVar(&f.CandBin, "candidate-bin", "", "the candidate's rdma-bench binary (default: this one)")
	fs.StringVar(&f.BaseArgs, "base-args", "", "extra run flags of the base, split at spaces, such as \"-I 0\"")
	fs.StringVar(&f.CandArgs, "candidate-args", "", "extra run flags of the candidate, split at spaces")
	fs.StringArrayVar(&f.BaseEnv, "base-env", nil, "NAME=VALUE added to the base's environment (repeatable), such as LD_LIBRARY_PATH=/opt/rdma-core/lib")
	fs.StringArrayVar(&f.CandEnv, "candidate-env", nil, "NAME=VALUE added to the candidate's environment (repeatable)")
	fs.StringVar(&f.BaseBefore, "base-before", "", "shell command run before every base run")
	fs.StringVar(&f.BaseAfter, "base-after", "", "shell command run after every base run")
	fs.StringVar(&f.CandBefore, "candidate-before", "", "shell command run before every candidate run (a qdisc, a sysctl)")
	fs.StringVar(&f.CandAfter, "candidate-after", "", "shell command run after every candidate run")
	fs.StringVar(&f.Host, "host", "", "measure against servers on this host (started beforehand, of a version that serves both sides) instead of --loopback")
	fs.IntVarP(&f.Iters, "iters", "n", 3000, "timed iterations of a latency run")
	fs.Float64VarP(&f.Duration, "duration", "D", 0.2, "seconds of a bandwidth run")
	fs.StringVar(&f.FailOn, "fail-on", "lat.p50>+5%,bw<-5%", "thresholds: lat.p50>+N% for latency points, bw<-N% for bandwidth points")
	fs.Float64Var(&f.Alpha, "alpha", 0.01, "the chance, at most, that a gate fails when the candidate is no slower (split over points and looks)")
	fs.IntVar(&f.LookEvery, "look-every", 10, "pairs between two looks at the points")
	fs.IntVar(&f.MaxPairs, "max-pairs", 40, "the most pairs of a point (1..1000)")
	fs.DurationVar(&f.Budget, "budget", 5*time.Minute, "the most time the gate may take, warm-up included")
	fs.StringVar(&f.Method, "method", string(gate.Paired), "how a point's change is estimated: paired (per-pair log ratios) or unpaired (the two sides' runs)")
	fs.DurationVar(&f.Timeout, "run-timeout", 2*time.Minute, "the most time one run may take")
	fs.StringVarP(&f.format, "output", "o", "table", "output format: table or json (the saved document)")
	fs.StringVar(&f.outFile, "output-file", "", "write the output to this file instead of standard output: "+outfile.Rules)
	fs.StringVar(&f.SaveDir, "save-dir", filepath.Join("results", "gate"), "where the gate's document is saved (after every round of pairs)")
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
	cfg, err := f.Config(fs.Args())
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
	if err := outfile.CheckDir(f.SaveDir); err != nil {
		dst.Abort()
		return usageError("--save-dir %s: %v", f.SaveDir, err)
	}
	v := buildVersion()
	tool := report.Tool{Name: "rdma-bench", Version: strings.TrimSpace(v.version + " " + v.note), Commit: v.commit}
	doc, err := gate.Measure(ctx, cfg, &f.Options, gate.Invocation{Tool: tool, Args: os.Args[1:]}, os.Stderr)
	if doc == nil {
		dst.Abort()
		if err == nil || inputerr.Is(err) {
			return err
		}
	} else {
		var out bytes.Buffer
		colour := f.format == "table" && f.outFile == "" && os.Getenv("NO_COLOR") == "" && isatty.IsTerminal(os.Stdout.Fd())
		if werr := gate.WriteOutput(&out, doc, f.format, colour); werr != nil {
			dst.Abort()
			return werr
		}
		if cerr := dst.CommitBytes(out.Bytes()); cerr != nil {
			return cerr
		}
	}
	if code, msg := gate.ExitStatus(ctx, doc, err); code != gate.ExitPass {
		return &exitStatus{code: code, msg: msg}
	}
	return nil
}
