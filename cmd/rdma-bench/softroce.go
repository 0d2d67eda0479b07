package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/pkg/softroce"
)

func init() {
	register("softroce", "create, delete or list soft-RoCE (rxe) devices", runSoftroce)
}

const softroceUsage = `usage: rdma-bench softroce up [--netdev IFACE] [--name NAME]
       rdma-bench softroce down [NAME]
       rdma-bench softroce status

up      load rdma_rxe and create a soft-RoCE device on a network interface
        (like: rdma link add rxe0 type rxe netdev eth0); needs root
down    delete a soft-RoCE device (default rxe0)
status  list the soft-RoCE devices: name, netdev, port state

Kernels without the rdma_rxe module (up says what is missing):
scripts/ci/rxe-module.sh --install --load builds it from the kernel's own
Debian or Ubuntu source (docs/ci.md); on a kernel without RDMA at all, run
inside the project's VM instead, vm/run.sh -- rdma-bench ...
`

func runSoftroce(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError("missing subcommand: up, down or status")
	}
	switch args[0] {
	case "up":
		return softroceUp(args[1:], stdout, stderr)
	case "down":
		return softroceDown(args[1:], stdout, stderr)
	case "status":
		return softroceStatus(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stderr, softroceUsage)
		return pflag.ErrHelp
	default:
		return usageError("unknown subcommand %q: choose up, down or status", args[0])
	}
}

func softroceUp(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("softroce up", "", stderr)
	netdev := fs.String("netdev", "", "network interface to bind to (default: the first one up, not loopback, with IPv4; else lo)")
	name := fs.String("name", softroce.DefaultName, "name of the new RDMA device")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q", fs.Arg(0))
	}
	return softroce.WriteUp(stdout, *name, *netdev)
}

func softroceDown(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("softroce down", "", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageError("unexpected argument %q: down takes one device name", fs.Arg(1))
	}
	return softroce.WriteDown(stdout, fs.Arg(0))
}

func softroceStatus(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("softroce status", "", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q", fs.Arg(0))
	}
	return softroce.WriteStatus(stdout)
}
