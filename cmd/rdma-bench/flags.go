//go:build cgo

package main

import (
	"errors"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/pkg/bench"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

// tokenEnv names the environment variable that gives the token.
const tokenEnv = bench.TokenEnv

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
	return inputErr(err)
}

// newDocument starts the report of this invocation.
func newDocument() *report.Document {
	v := buildVersion()
	return bench.NewDocument(report.Tool{Name: "rdma-bench", Version: strings.TrimSpace(v.version + " " + v.note), Commit: v.commit}, os.Args)
}

func checkHost(arg string) (string, error) {
	h, err := bench.CheckHost(arg)
	return h, inputErr(err)
}

func rejectChanged(fs *pflag.FlagSet, why string, names ...string) error {
	return inputErr(bench.RejectChanged(fs, why, names...))
}

func checkRDMAFlags(fs *pflag.FlagSet, names []string) error {
	return inputErr(bench.CheckRDMAFlags(fs, names))
}

// benchFlags are bench.Flags as fabric reads them (its spec, local
// settings and port, copied out by check), until fabric moves.
type benchFlags struct {
	bench.Flags
	spec  workloads.Spec
	local workloads.Local
	port  int
}

func addBenchFlags(fs *pflag.FlagSet, b *benchFlags) { b.Register(fs) }

func (b *benchFlags) check() error {
	if err := b.Check(); err != nil {
		return inputErr(err)
	}
	b.spec, b.local, b.port = b.Spec, b.Local, b.Port
	return nil
}

// target is where fabric's points run.
type target struct{ host string }

// resolved are fabric's points, checked, with the device they use.
type resolved struct {
	specs  []workloads.Spec
	device *report.Device
}

func (b *benchFlags) resolve(specs []workloads.Spec, at target, sweep bool, runs int) (resolved, error) {
	p, err := b.Resolve(specs, bench.Target{Host: at.host}, sweep, runs, os.Stderr)
	if err != nil {
		return resolved{}, deviceError(err)
	}
	return resolved{specs: p.Specs, device: p.Device}, nil
}
