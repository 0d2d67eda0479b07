//go:build cgo

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

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
single-point runs, alternated pair by pair (A B, then B A), for as long as
a point is undecided and another round fits in --budget; a decided point
stops being measured. Default points: %s.
Each run is "rdma-bench run WORKLOAD --loopback -s SIZE -n N|-D SECONDS -o
json SIDE-ARGS" (HOST instead of --loopback with --host), made in a worker
of its side's binary kept between runs (--worker).

decisions, per point, at looks spaced by --look-growth from --first-look
pairs, and a final look when the budget ends: fail when the whole interval
of the change is a regression and its estimate at least half the
threshold; pass when the whole interval is within the threshold; else
undecided (never read as "no regression"). The false-alarm budget
(--alpha) is spent over the looks so that a gate of a candidate no slower
fails at most that often. Each point shows how its pairs spread and what
the budget can decide.

exit status: 0 pass, 1 fail (a regression), 3 undecided, 2 bad input,
4 a measurement failed (the pairs so far are saved, partial), 130 interrupted
(saved, partial)

flags:
`

func runGate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gate", fmt.Sprintf(gateUsage, strings.Join(gate.DefaultPoints, " ")), stderr)
	var o gate.Options
	o.Register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := o.Config(fs.Args())
	if err != nil {
		return err
	}
	if !slices.Contains(gate.Formats, o.Format) {
		return usageError("-o %s: want %s", o.Format, strings.Join(gate.Formats, ", "))
	}
	dst, err := createOutput(o.OutFile, stdout)
	if err != nil {
		return err
	}
	if err := outfile.CheckDir(o.SaveDir); err != nil {
		dst.Abort()
		return usageError("--save-dir %s: %v", o.SaveDir, err)
	}
	v := buildVersion()
	tool := report.Tool{Name: "rdma-bench", Version: strings.TrimSpace(v.version + " " + v.note), Commit: v.commit}
	doc, err := gate.Measure(ctx, cfg, &o, gate.Invocation{Tool: tool, Args: os.Args[1:]}, stderr)
	if doc == nil {
		dst.Abort()
		if err == nil || inputerr.Is(err) {
			return err
		}
	} else {
		var out bytes.Buffer
		colour := o.Format == "table" && o.OutFile == "" && os.Getenv("NO_COLOR") == "" && isTerminal(stdout)
		if werr := gate.WriteOutput(&out, doc, o.Format, colour); werr != nil {
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
