//go:build cgo

package main

import (
	"context"
	"errors"
	"io"

	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

func init() {
	register("devices", "list RDMA devices, ports and GIDs (like ibv_devinfo -v)", runDevices)
}

const noDeviceHelp = `no RDMA device found on this host.
  With a NIC: load its driver (mlx5_ib, irdma, bnxt_re, ...).
  Soft-RoCE where the kernel has rdma_rxe: rdma-bench softroce up [--netdev IFACE]
  Kernel without RDMA (no rdma_rxe module): run inside the project's VM: vm/run.sh -- rdma-bench devices`

func runDevices(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("devices", "", stderr)
	output := fs.StringP("output", "o", "table", "output format: table or json")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q", fs.Arg(0))
	}
	if *output != "table" && *output != "json" {
		return usageError("unknown --output %q: choose table or json", *output)
	}
	devs, err := verbs.Describe()
	if errors.Is(err, verbs.ErrNoDevice) {
		return errors.New(noDeviceHelp)
	}
	if err != nil {
		return err
	}
	return verbs.WriteDevices(stdout, devs, *output)
}
