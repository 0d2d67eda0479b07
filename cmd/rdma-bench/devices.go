//go:build cgo

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/olekukonko/tablewriter"

	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

func init() {
	register("devices", "list RDMA devices, ports and GIDs (like ibv_devinfo -v)", runDevices)
}

const noDeviceHelp = `no RDMA device found on this host.
  With a NIC: load its driver (mlx5_ib, irdma, bnxt_re, ...).
  Soft-RoCE where the kernel has rdma_rxe: rdma-bench softroce up [--netdev IFACE]
  Kernel without RDMA (no rdma_rxe module): run inside the project's VM: vm/run.sh -- rdma-bench devices`

func runDevices(_ context.Context, args []string) error {
	fs := newFlagSet("devices")
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
	if *output == "json" {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(devs)
	}
	return renderDevices(os.Stdout, devs)
}

func renderDevices(w io.Writer, devs []verbs.DeviceInfo) error {
	for i, d := range devs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s  node_guid %s  fw_ver %s  atomic_cap %s\n", d.Name, d.NodeGUID, d.FirmwareVersion, d.Atomic)
		fmt.Fprintf(w, "  max_qp %d  max_qp_wr %d  max_cqe %d  max_mr_size %d  max_sge %d  max_qp_rd_atom %d\n",
			d.MaxQP, d.MaxQPWR, d.MaxCQE, d.MaxMRSize, d.MaxSGE, d.MaxQPRdAtom)
		for _, p := range d.Ports {
			fmt.Fprintf(w, "  port %d: %s (%s)  link_layer %s  active_mtu %d (max %d)  lid %d  speed %s\n",
				p.Port, p.State, p.PhysState, p.LinkLayer, p.ActiveMTU, p.MaxMTU, p.LID, p.Speed)
			if p.GIDError != "" {
				fmt.Fprintf(w, "    gids: %s\n", p.GIDError)
				continue
			}
			t := tablewriter.NewTable(w)
			t.Header("index", "type", "gid", "netdev", "default")
			for _, g := range p.GIDs {
				def := ""
				if g.Default {
					def = "*"
				}
				if err := t.Append(strconv.Itoa(g.Index), g.Type, g.GID, g.Netdev, def); err != nil {
					return fmt.Errorf("rendering gid table: %w", err)
				}
			}
			if err := t.Render(); err != nil {
				return fmt.Errorf("rendering gid table: %w", err)
			}
		}
	}
	return nil
}
