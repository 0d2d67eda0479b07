package workloads

import (
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// DescribeDevice returns the metadata a report carries about the device,
// port and GID a run with cfg uses.
func DescribeDevice(cfg Config) (*report.Device, error) {
	ctx, err := verbs.Open(cfg.Device)
	if err != nil {
		return nil, err
	}
	defer ctx.Close()
	attr, err := ctx.Query()
	if err != nil {
		return nil, err
	}
	pa, err := ctx.QueryPort(cfg.IBPort)
	if err != nil {
		return nil, err
	}
	table, err := ctx.GIDTable(cfg.IBPort)
	if err != nil {
		return nil, err
	}
	gid, err := verbs.SelectGID(table, cfg.GIDIndex)
	if err != nil {
		return nil, err
	}
	return &report.Device{Name: ctx.Name(), FirmwareVersion: attr.FirmwareVersion, Port: cfg.IBPort,
		LinkLayer: pa.LinkLayer.String(), MTU: cfg.pathMTU(int(pa.ActiveMTU)), GIDType: gid.Type.String(),
		GIDIndex: gid.Index}, nil
}
