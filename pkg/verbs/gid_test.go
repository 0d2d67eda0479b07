package verbs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSysfs builds a fake /sys/class/infiniband tree: files maps a path
// below root to its content.
func writeSysfs(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const zeroGID = "0000:0000:0000:0000:0000:0000:0000:0000\n"

// rxeFixture is what rxe0 over an interface with an IPv4 address shows.
var rxeFixture = map[string]string{
	"rxe0/ports/1/gids/0":               "fe80:0000:0000:0000:5054:00ff:fe12:3456\n",
	"rxe0/ports/1/gids/1":               "0000:0000:0000:0000:0000:ffff:0a0b:0001\n",
	"rxe0/ports/1/gids/2":               zeroGID,
	"rxe0/ports/1/gids/3":               "2001:0db8:0000:0000:0000:0000:0000:0001\n",
	"rxe0/ports/1/gid_attrs/types/0":    "RoCE v2\n",
	"rxe0/ports/1/gid_attrs/types/1":    "RoCE v2\n",
	"rxe0/ports/1/gid_attrs/types/3":    "RoCE v2\n",
	"rxe0/ports/1/gid_attrs/ndevs/0":    "eth0\n",
	"rxe0/ports/1/gid_attrs/ndevs/1":    "eth0\n",
	"mlx5_0/ports/1/gids/0":             "fe80:0000:0000:0000:0002:c903:00a1:b2c3\n",
	"mlx5_0/ports/1/gids/1":             "fe80:0000:0000:0000:0002:c903:00a1:b2c3\n",
	"mlx5_0/ports/1/gids/2":             "0000:0000:0000:0000:0000:ffff:c0a8:0102\n",
	"mlx5_0/ports/1/gids/3":             "0000:0000:0000:0000:0000:ffff:c0a8:0102\n",
	"mlx5_0/ports/1/gid_attrs/types/0":  "IB/RoCE v1\n",
	"mlx5_0/ports/1/gid_attrs/types/1":  "RoCE v2\n",
	"mlx5_0/ports/1/gid_attrs/types/2":  "IB/RoCE v1\n",
	"mlx5_0/ports/1/gid_attrs/types/3":  "RoCE v2\n",
	"ib0dev/ports/1/gids/0":             "fe80:0000:0000:0000:0002:c903:00a1:0001\n",
	"ib0dev/ports/1/gids/1":             zeroGID,
	"badtype/ports/1/gids/0":            "fe80:0000:0000:0000:0000:0000:0000:0001\n",
	"badtype/ports/1/gid_attrs/types/0": "RoCE v9\n",
}

func TestReadGIDTableAndSelect(t *testing.T) {
	root := writeSysfs(t, rxeFixture)
	tests := []struct {
		dev       string
		override  int
		wantIndex int
		wantType  GIDType
		wantGID   string
		wantLen   int
	}{
		{"rxe0", -1, 1, GIDTypeRoCEv2, "::ffff:10.11.0.1", 3},
		{"rxe0", 0, 0, GIDTypeRoCEv2, "fe80::5054:ff:fe12:3456", 3},
		{"rxe0", 3, 3, GIDTypeRoCEv2, "2001:db8::1", 3},
		{"mlx5_0", -1, 3, GIDTypeRoCEv2, "::ffff:192.168.1.2", 4},
		{"mlx5_0", 2, 2, GIDTypeRoCEv1, "::ffff:192.168.1.2", 4},
		{"ib0dev", -1, 0, GIDTypeIB, "fe80::2:c903:a1:1", 1},
	}
	for _, tc := range tests {
		table, err := ReadGIDTable(root, tc.dev, 1)
		if err != nil {
			t.Fatalf("%s: %v", tc.dev, err)
		}
		if len(table) != tc.wantLen {
			t.Errorf("%s: %d populated entries, want %d: %+v", tc.dev, len(table), tc.wantLen, table)
		}
		e, err := SelectGID(table, tc.override)
		if err != nil {
			t.Fatalf("%s override %d: %v", tc.dev, tc.override, err)
		}
		if e.Index != tc.wantIndex || e.Type != tc.wantType || e.GID.String() != tc.wantGID {
			t.Errorf("%s override %d: got index %d %s %s; want %d %s %s", tc.dev, tc.override,
				e.Index, e.Type, e.GID, tc.wantIndex, tc.wantType, tc.wantGID)
		}
	}
	rxe, _ := ReadGIDTable(root, "rxe0", 1)
	if rxe[0].Netdev != "eth0" {
		t.Errorf("netdev %q, want eth0", rxe[0].Netdev)
	}
}

func TestSelectGIDErrors(t *testing.T) {
	root := writeSysfs(t, rxeFixture)
	table, _ := ReadGIDTable(root, "rxe0", 1)
	_, err := SelectGID(table, 2) // unpopulated
	if err == nil || !strings.Contains(err.Error(), "gid index 2 out of range") || !strings.Contains(err.Error(), "0, 1, 3") {
		t.Errorf("override 2: %v; want out of range naming 0, 1, 3", err)
	}
	if _, err := SelectGID(table, 99); err == nil {
		t.Error("override 99 accepted")
	}
	if _, err := SelectGID(nil, -1); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty table: %v", err)
	}
	if _, err := ReadGIDTable(root, "nosuch", 1); err == nil {
		t.Error("missing device read without error")
	}
	if _, err := ReadGIDTable(root, "badtype", 1); err == nil || !strings.Contains(err.Error(), "RoCE v9") {
		t.Errorf("bad type: %v", err)
	}
}

func TestParseGID(t *testing.T) {
	g, err := ParseGID("0000:0000:0000:0000:0000:ffff:7f00:0001")
	if err != nil || g.String() != "::ffff:127.0.0.1" || !g.IsIPv4() || g.IsLinkLocal() {
		t.Fatalf("ParseGID = %s, %v", g, err)
	}
	if _, err := ParseGID("zz"); err == nil {
		t.Fatal("ParseGID(zz) succeeded")
	}
}

func TestMTU(t *testing.T) {
	for _, m := range []MTU{256, 512, 1024, 2048, 4096} {
		if !m.Valid() || mtuFromEnum(m.enum()) != m {
			t.Errorf("mtu %d does not round-trip", m)
		}
	}
	for _, m := range []MTU{0, 100, 1500, 8192} {
		if m.Valid() {
			t.Errorf("mtu %d accepted", m)
		}
	}
}
