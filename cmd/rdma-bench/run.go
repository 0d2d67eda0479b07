//go:build cgo

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

func init() {
	register("run", "run a workload as the client, or both sides with --loopback", runRun)
}

const runUsage = `usage: rdma-bench run WORKLOAD HOST [flags]
       rdma-bench run WORKLOAD --loopback [flags]

workloads: %s

perftest's spellings are taken too (--post_list, -A FETCH_AND_ADD, -S,
--report_gbits, ...); its other flags are refused saying what to use
instead: docs/perftest-flags.md. -o perftest prints perftest's columns.
`

func runRun(ctx context.Context, args []string) error {
	fs := newFlagSet("run")
	var b benchFlags
	var o outputFlags
	var rep repeatFlags
	var pf plotFlag
	addBenchFlags(fs, &b)
	addOutputFlags(fs, &o, report.DefaultEncoder)
	addRepeatFlags(fs, &rep)
	addPlotFlag(fs, &pf)
	loopback := fs.Bool("loopback", false, "run server and client in this process, on one device")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, runUsage, strings.Join(workloads.Names(), ", "))
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := b.check(); err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	if err := pf.check(&o); err != nil {
		return err
	}
	if err := rep.check(); err != nil {
		return err
	}
	at, name, err := runTarget(fs.Args(), *loopback)
	if err != nil {
		return err
	}
	w, err := workloads.Lookup(name)
	if err != nil {
		return usageError("%v", err)
	}
	if err := o.checkWorkload(w); err != nil {
		return err
	}
	if err := checkRDMAFlags(b.fs, []string{w.Name}); err != nil {
		return err
	}
	sizes, err := b.sizes()
	if err != nil {
		return err
	}
	spec := b.spec
	spec.Workload = w.Name
	specs := b.rateSweep(spec)
	if sizes != nil {
		specs = specs[:0]
		for _, s := range sizes {
			spec.Size = s
			specs = append(specs, b.rateSweep(spec)...)
		}
	}
	pts, err := b.resolve(specs, at, sizes != nil, rep.n)
	if err != nil {
		return err
	}
	return pf.after(runPoints(ctx, &b, &o, pts, at, rep))
}

// runTarget reads WORKLOAD and HOST (or --loopback) from the arguments.
func runTarget(args []string, loopback bool) (target, string, error) {
	switch {
	case len(args) == 0:
		return target{}, "", usageError("name a workload: %s", strings.Join(workloads.Names(), ", "))
	case len(args) > 2:
		return target{}, "", usageError("unexpected argument %q", args[2])
	case loopback && len(args) == 2:
		return target{}, "", usageError("--loopback runs both sides here: drop the host %q", args[1])
	case !loopback && len(args) < 2:
		return target{}, "", usageError("name the server's host, or use --loopback")
	}
	at := target{loopback: loopback}
	if !loopback {
		h, err := checkHost(args[1])
		if err != nil {
			return target{}, "", err
		}
		at.host = h
	}
	return at, args[0], nil
}

// checkHost takes a server's host name or address ("[::1]" for an IPv6
// literal, brackets optional).
func checkHost(arg string) (string, error) {
	h := arg
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	if h == "" {
		return "", usageError("empty host %q: name the server's host or address, or use --loopback", arg)
	}
	if net.ParseIP(h) != nil {
		return h, nil
	}
	if len(h) > 253 || strings.IndexFunc(h, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.')
	}) >= 0 {
		return "", usageError("host %q: want a host name or an IP address (the port goes in -p)", arg)
	}
	return h, nil
}
