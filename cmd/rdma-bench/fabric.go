//go:build cgo

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/bench"
	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
	"github.com/rdma-bench/rdma-bench/pkg/fabric/measure"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

func init() {
	register("fabric", "measure every host pair of a fabric, one process per host started by a launcher", runFabric)
}

const fabricUsage = `usage: rdma-bench fabric WORKLOAD... [flags]

Started once per host (or NIC) by a launcher: mpirun (give --coordinator or
--rendezvous-dir), mpiexec or srun --mpi=pmi2 (PMI: nothing to give), srun,
a Kubernetes Indexed Job (with --world-size), or by hand with --rank and
--world-size. Rank 0 coordinates, measures its share, and prints a matrix per
workload, the failed pairs and the outliers: the pairs worse than the median
in the sweep, re-measured alternately with the median pair until a paired
interval confirms or clears them; the others print only errors.
Exit status: 0, 1 when a pair failed or is an outlier, 2 on bad input.
See docs/fabric.md.

workloads: %s

`

func runFabric(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("fabric", fmt.Sprintf(fabricUsage, strings.Join(catalog.Names(), ", ")), stderr)
	var f measure.Flags
	f.Register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := f.Check(); err != nil {
		return err
	}
	if f.Plan {
		return f.Config.WritePlan(stdout, os.Getenv, f.World(), f.Bench.Spec)
	}
	world, specs, params, err := f.Launch(os.Getenv, stderr)
	if err != nil {
		return err
	}
	pts, err := bench.Resolve(f.Bench.Local, specs, bench.Target{Host: "peer"}, false, 1, stderr)
	if err != nil {
		return deviceError(err)
	}
	s := measure.Setup{World: world, Specs: pts.Specs, Device: pts.Device, Local: pts.Local,
		Params: params, Version: fabricVersion(), NewDocument: func() *report.Document { return newDocument(os.Args) }, Log: stderr}
	if fs.Changed("port") {
		s.Port = f.Bench.Port
	}
	r, err := measure.NewRank(&f.Config, s)
	if err != nil {
		return deviceError(err)
	}
	defer r.Close()
	doc, err := r.Run(ctx)
	if doc == nil {
		return err
	}
	defer doc.Close() // rank 0's pair log, once the outputs are written
	if err := f.Config.WriteResults(doc, err, stderr); err != nil {
		return err
	}
	if fabric.ExitStatus(doc) != 0 {
		return &exitStatus{code: 1, msg: fabric.Summary(doc)}
	}
	return nil
}

// fabricVersion is the version every rank must run: the version and the
// commit, so that two builds of one version are told apart.
func fabricVersion() string {
	v := buildVersion()
	if v.commit == "" {
		return v.version
	}
	return fmt.Sprintf("%s (commit %s)", v.version, v.commit)
}
