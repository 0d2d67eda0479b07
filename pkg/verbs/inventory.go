package verbs

import "fmt"

// PortInfo describes one port for `rdma-bench devices`.
type PortInfo struct {
	Port      int       `json:"port"`
	State     string    `json:"state"`
	PhysState string    `json:"phys_state"`
	LinkLayer string    `json:"link_layer"`
	ActiveMTU int       `json:"active_mtu"`
	MaxMTU    int       `json:"max_mtu"`
	LID       uint16    `json:"lid"`
	Speed     string    `json:"speed"`
	Width     int       `json:"width_lanes"`
	LaneGbps  float64   `json:"lane_gbps"`
	GIDs      []GIDInfo `json:"gids"`
	GIDError  string    `json:"gid_error,omitempty"`
	Attr      PortAttr  `json:"-"`
}

// GIDInfo is one populated GID table entry for `rdma-bench devices`.
type GIDInfo struct {
	Index  int    `json:"index"`
	Type   string `json:"type"`
	GID    string `json:"gid"`
	Netdev string `json:"netdev,omitempty"`
	// Default marks the entry rdma-bench picks without --gid-index.
	Default bool `json:"default"`
}

// DeviceInfo describes one device and its ports: what `ibv_devinfo -v`
// shows that matters for benchmarking.
type DeviceInfo struct {
	Name            string     `json:"name"`
	NodeGUID        string     `json:"node_guid"`
	FirmwareVersion string     `json:"fw_ver"`
	MaxQP           int        `json:"max_qp"`
	MaxQPWR         int        `json:"max_qp_wr"`
	MaxCQE          int        `json:"max_cqe"`
	MaxMRSize       uint64     `json:"max_mr_size"`
	MaxSGE          int        `json:"max_sge"`
	MaxQPRdAtom     int        `json:"max_qp_rd_atom"`
	Atomic          string     `json:"atomic_cap"`
	Ports           []PortInfo `json:"ports"`
}

// Describe queries every device and port the host has.
// Equivalent to: `ibv_devinfo -v`.
func Describe() ([]DeviceInfo, error) {
	names, err := DeviceNames()
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, ErrNoDevice
	}
	out := make([]DeviceInfo, 0, len(names))
	for _, n := range names {
		d, err := describeOne(n)
		if err != nil {
			return nil, fmt.Errorf("describing %s: %w", n, err)
		}
		out = append(out, d)
	}
	return out, nil
}

func describeOne(name string) (DeviceInfo, error) {
	ctx, err := Open(name)
	if err != nil {
		return DeviceInfo{}, err
	}
	defer ctx.Close()
	a, err := ctx.Query()
	if err != nil {
		return DeviceInfo{}, err
	}
	d := DeviceInfo{
		Name: name, NodeGUID: GUIDString(a.NodeGUID), FirmwareVersion: a.FirmwareVersion,
		MaxQP: a.MaxQP, MaxQPWR: a.MaxQPWR, MaxCQE: a.MaxCQE, MaxMRSize: a.MaxMRSize,
		MaxSGE: a.MaxSGE, MaxQPRdAtom: a.MaxQPRdAtom, Atomic: a.Atomic.String(),
	}
	for port := 1; port <= a.PhysPortCount; port++ {
		pa, err := ctx.QueryPort(port)
		if err != nil {
			return DeviceInfo{}, err
		}
		p := PortInfo{
			Port: port, State: pa.State.String(), PhysState: pa.PhysStateString(), LinkLayer: pa.LinkLayer.String(),
			ActiveMTU: int(pa.ActiveMTU), MaxMTU: int(pa.MaxMTU), LID: pa.LID, Speed: pa.SpeedString(),
			Width: pa.WidthLanes(), LaneGbps: pa.LaneGbps(), Attr: pa,
		}
		table, err := ctx.GIDTable(port)
		if err != nil {
			p.GIDError = err.Error()
		}
		def, derr := SelectGID(table, -1)
		for _, e := range table {
			p.GIDs = append(p.GIDs, GIDInfo{Index: e.Index, Type: e.Type.String(), GID: e.GID.String(),
				Netdev: e.Netdev, Default: derr == nil && e.Index == def.Index})
		}
		d.Ports = append(d.Ports, p)
	}
	return d, nil
}
