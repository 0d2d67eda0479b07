package softroce

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestChooseNetdev(t *testing.T) {
	lo := iface{name: "lo", up: true, loopback: true, ipv4: true}
	tests := []struct {
		name   string
		ifaces []iface
		want   string
	}{
		{"none", nil, "lo"},
		{"only loopback", []iface{lo}, "lo"},
		{"first up with ipv4", []iface{lo, {name: "eth0", up: true, ipv4: true}, {name: "eth1", up: true, ipv4: true}}, "eth0"},
		{"skips down", []iface{lo, {name: "eth0", ipv4: true}, {name: "eth1", up: true, ipv4: true}}, "eth1"},
		{"skips no ipv4", []iface{lo, {name: "eth0", up: true}, {name: "wlan0", up: true, ipv4: true}}, "wlan0"},
		{"nothing usable", []iface{lo, {name: "eth0", up: true}, {name: "eth1", ipv4: true}}, "lo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := chooseNetdev(tt.ifaces); got != tt.want {
				t.Errorf("chooseNetdev() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUnknownNetdevError(t *testing.T) {
	err := unknownNetdevError("eth9", []iface{{name: "lo"}, {name: "eth0"}})
	want := `no network interface "eth9" (interfaces: lo, eth0)`
	if err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
}

func TestModprobeError(t *testing.T) {
	fail := errors.New("exit status 1")
	missing := modprobeError("6.18.44", "modprobe: FATAL: Module rdma_rxe not found in directory /lib/modules/6.18.44", fail, true, true)
	noModules := modprobeError("6.18.44", "", fail, false, false)
	if msg := missing.Error(); !strings.Contains(msg, "its headers are in /lib/modules/6.18.44/build") {
		t.Errorf("%q does not say the headers are there", msg)
	}
	if msg := noModules.Error(); !strings.Contains(msg, "no headers (/lib/modules/6.18.44/build): the script installs linux-headers-6.18.44") {
		t.Errorf("%q does not say the headers are missing", msg)
	}
	for _, err := range []error{missing, noModules} {
		if !errors.Is(err, ErrNoModule) {
			t.Errorf("%v: want ErrNoModule", err)
		}
		msg := err.Error()
		for _, want := range []string{"kernel has no rdma_rxe module", "6.18.44", "scripts/ci/rxe-module.sh --install --load", "vm/run.sh", "make test", "linux-modules-extra-6.18.44"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%q lacks %q", msg, want)
			}
		}
	}

	other := modprobeError("6.8.0", "modprobe: ERROR: could not insert 'rdma_rxe': Operation not permitted", fail, true, true)
	if errors.Is(other, ErrNoModule) {
		t.Errorf("%v: a permission error is not ErrNoModule", other)
	}
	want := "modprobe rdma_rxe: exit status 1: modprobe: ERROR: could not insert 'rdma_rxe': Operation not permitted"
	if other.Error() != want {
		t.Errorf("got %q, want %q", other, want)
	}
	if got := modprobeError("6.8.0", "", fail, true, true).Error(); got != "modprobe rdma_rxe: exit status 1" {
		t.Errorf("got %q", got)
	}
}

func TestCheckFree(t *testing.T) {
	links := []Link{
		{Name: "rxe0", Type: TypeRXE, Netdev: "lo", State: "ACTIVE"},
		{Name: "mlx5_0", Netdev: "eth0"},
		{Name: "odd0"},
	}
	tests := []struct {
		name, dev, netdev, want string
	}{
		{"free", "rxe1", "eth1", ""},
		{"hardware on the same netdev is fine", "rxe1", "eth0", ""},
		{"name taken", "rxe0", "eth1", `rdma device name "rxe0" is taken (bound to lo)`},
		{"name taken, netdev unknown", "odd0", "eth1", `rdma device name "odd0" is taken`},
		{"netdev has rxe", "rxe1", "lo", `network interface lo already has soft-RoCE device "rxe0"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkFree(tt.dev, tt.netdev, links)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tt.want {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

func TestDescribeLinks(t *testing.T) {
	if got := describeLinks(nil); got != "there are no rdma devices" {
		t.Errorf("got %q", got)
	}
	if got := describeLinks([]Link{{Name: "rxe0"}, {Name: "mlx5_0"}}); got != "devices: rxe0, mlx5_0" {
		t.Errorf("got %q", got)
	}
}

// fakeSysfs points sysfsRoot at a temporary tree holding files (path: content).
func fakeSysfs(t *testing.T, files map[string]string) {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := sysfsRoot
	sysfsRoot = root
	t.Cleanup(func() { sysfsRoot = old })
}

func TestReadLink(t *testing.T) {
	fakeSysfs(t, map[string]string{
		"class/infiniband/rxe0/parent":                         "lo\n",
		"class/infiniband/rxe0/ports/1/state":                  "4: ACTIVE\n",
		"class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0":      "lo\n",
		"class/infiniband/mlx5_0/ports/1/state":                "1: DOWN\n",
		"class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0":    "eth0\n",
		"class/infiniband/bare0/node_type":                     "1: CA\n",
		"class/infiniband/rxe1/parent":                         "dummy0\n",
		"class/infiniband/rxe1/ports/1/state":                  "DOWN",
		"class/infiniband/rxe1/ports/1/gid_attrs/ndevs/0":      "dummy0\n",
		"class/infiniband/unused/ports/1/gid_attrs/ndevs/junk": "x",
	})
	tests := []Link{
		{Name: "rxe0", Type: TypeRXE, Netdev: "lo", State: "ACTIVE"},
		{Name: "mlx5_0", Netdev: "eth0", State: "DOWN"},
		{Name: "bare0"},
		{Name: "rxe1", Type: TypeRXE, Netdev: "dummy0", State: "DOWN"},
		{Name: "absent"},
	}
	for _, want := range tests {
		if got := readLink(want.Name); got != want {
			t.Errorf("readLink(%q) = %+v, want %+v", want.Name, got, want)
		}
	}
}

func TestLoadModuleAlreadyLoaded(t *testing.T) {
	fakeSysfs(t, map[string]string{"module/rdma_rxe/refcnt": "0\n"})
	if err := loadModule(); err != nil {
		t.Fatalf("loadModule with rdma_rxe loaded: %v", err)
	}
}
