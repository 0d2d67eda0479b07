package verbs

import (
	"encoding/json"
	"strings"
	"testing"
)

func inventory() []DeviceInfo {
	return []DeviceInfo{
		{Name: "rxe0", NodeGUID: "0011:22ff:fe33:4455", FirmwareVersion: "0.0.0", MaxQP: 1024, Atomic: "ATOMIC_HCA",
			Ports: []PortInfo{{Port: 1, State: "ACTIVE", PhysState: "LINK_UP", LinkLayer: "Ethernet", ActiveMTU: 1024, MaxMTU: 4096, Speed: "10 Gb/s",
				GIDs: []GIDInfo{{Index: 0, Type: "RoCE v2", GID: "fe80::1", Netdev: "eth0"}, {Index: 1, Type: "RoCE v2", GID: "::ffff:10.0.0.1", Netdev: "eth0", Default: true}}}}},
		{Name: "mlx5_0", Ports: []PortInfo{{Port: 1, State: "DOWN", GIDError: "reading the GID table: permission denied"}}},
	}
}

func TestRenderDevices(t *testing.T) {
	var b strings.Builder
	if err := RenderDevices(&b, inventory()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"rxe0  node_guid 0011:22ff:fe33:4455  fw_ver 0.0.0  atomic_cap ATOMIC_HCA\n",
		"  max_qp 1024  max_qp_wr 0",
		"  port 1: ACTIVE (LINK_UP)  link_layer Ethernet  active_mtu 1024 (max 4096)  lid 0  speed 10 Gb/s\n",
		"::ffff:10.0.0.1",
		"\n\nmlx5_0  node_guid",
		"    gids: reading the GID table: permission denied\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "::ffff:10.0.0.1") && !strings.Contains(l, "*") {
			t.Errorf("the default GID is not starred: %q", l)
		}
		if strings.Contains(l, "fe80::1") && strings.Contains(l, "*") {
			t.Errorf("a GID that is not the default is starred: %q", l)
		}
	}
}

func TestWriteDevicesJSON(t *testing.T) {
	var b strings.Builder
	if err := WriteDevices(&b, inventory(), "json"); err != nil {
		t.Fatal(err)
	}
	var got []DeviceInfo
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatalf("%v in\n%s", err, b.String())
	}
	if len(got) != 2 || got[0].Ports[0].GIDs[1].GID != "::ffff:10.0.0.1" || !strings.HasPrefix(b.String(), "[\n  {") {
		t.Errorf("got\n%s", b.String())
	}
	b.Reset()
	if err := WriteDevices(&b, inventory(), "table"); err != nil || !strings.HasPrefix(b.String(), "rxe0  node_guid") {
		t.Errorf("table: %v\n%s", err, b.String())
	}
}
