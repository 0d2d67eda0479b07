package verbs

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// WriteDevices writes devs to w for `rdma-bench devices`: indented JSON
// when format is "json", else as [RenderDevices] does.
func WriteDevices(w io.Writer, devs []DeviceInfo, format string) error {
	if format != "json" {
		return RenderDevices(w, devs)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(devs); err != nil {
		return fmt.Errorf("writing the devices: %w", err)
	}
	return nil
}

// RenderDevices writes devs as text, like ibv_devinfo -v: a device's
// attributes, then each port's, with its GID table.
func RenderDevices(w io.Writer, devs []DeviceInfo) error {
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
			t := display.NewTable(w, false, "index", "type", "gid", "netdev", "default")
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
