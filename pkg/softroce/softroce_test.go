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
	notFound := "modprobe: FATAL: Module rdma_rxe not found in directory /lib/modules/6.18.44"
	k := kernelFacts{release: "6.18.44", haveModules: true, haveHeaders: true, haveIBCore: true, distro: "debian"}
	missing := modprobeError(notFound, fail, k)
	noHeaders := k
	noHeaders.haveHeaders = false
	if msg := missing.Error(); !strings.Contains(msg, "its headers are in /lib/modules/6.18.44/build") {
		t.Errorf("%q does not say the headers are there", msg)
	}
	if msg := modprobeError(notFound, fail, noHeaders).Error(); !strings.Contains(msg, "no headers in /lib/modules/6.18.44/build: the script installs linux-headers-6.18.44") {
		t.Errorf("%q does not say the headers are missing", msg)
	}
	for _, err := range []error{missing, modprobeError(notFound, fail, noHeaders)} {
		if !errors.Is(err, ErrNoModule) {
			t.Errorf("%v: want ErrNoModule", err)
		}
		msg := err.Error()
		for _, want := range []string{"kernel has no rdma_rxe module (kernel 6.18.44;", "sudo scripts/ci/rxe-module.sh --install --load", "vm/run.sh", "make test"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%q lacks %q", msg, want)
			}
		}
		if strings.Contains(msg, "linux-modules-extra") {
			t.Errorf("%q names Ubuntu's package on Debian", msg)
		}
	}

	other := modprobeError("modprobe: ERROR: could not insert 'rdma_rxe': Operation not permitted", fail, k)
	if errors.Is(other, ErrNoModule) {
		t.Errorf("%v: a permission error is not ErrNoModule", other)
	}
	want := "modprobe rdma_rxe: exit status 1: modprobe: ERROR: could not insert 'rdma_rxe': Operation not permitted"
	if other.Error() != want {
		t.Errorf("got %q, want %q", other, want)
	}
	if got := modprobeError("", fail, k).Error(); got != "modprobe rdma_rxe: exit status 1" {
		t.Errorf("got %q", got)
	}
}

func TestModprobeErrorMessages(t *testing.T) {
	notFound := "modprobe: FATAL: Module rdma_rxe not found in directory /lib/modules/6.8.0-1021-azure"
	azure := kernelFacts{release: "6.8.0-1021-azure", haveModules: true, haveIBCore: true, distro: "ubuntu"}
	tests := []struct {
		name string
		out  string
		k    kernelFacts
		want string
	}{
		{
			"ubuntu runner without headers", notFound, azure,
			"kernel has no rdma_rxe module (kernel 6.8.0-1021-azure; no headers in /lib/modules/6.8.0-1021-azure/build: " +
				"the script installs linux-headers-6.8.0-1021-azure): install linux-modules-extra-6.8.0-1021-azure, which has it " +
				"for some Ubuntu kernels (apt-get install linux-modules-extra-6.8.0-1021-azure), or build it from the kernel's own " +
				"distribution source and headers: sudo scripts/ci/rxe-module.sh --install --load (in rdma-bench's repository; " +
				"docs/ci.md); or run inside the project's QEMU VM, whose Debian kernel has it: vm/run.sh -- COMMAND (make test does this)",
		},
		{
			"debian kernel with headers", notFound,
			kernelFacts{release: "6.1.0-56-amd64", haveModules: true, haveHeaders: true, haveIBCore: true, distro: "debian"},
			"kernel has no rdma_rxe module (kernel 6.1.0-56-amd64; its headers are in /lib/modules/6.1.0-56-amd64/build): " +
				"build it from the kernel's own distribution source and headers: sudo scripts/ci/rxe-module.sh --install --load " +
				"(in rdma-bench's repository; docs/ci.md); or run inside the project's QEMU VM, whose Debian kernel has it: " +
				"vm/run.sh -- COMMAND (make test does this)",
		},
		{
			"another distribution", notFound,
			kernelFacts{release: "6.12.0-55.el10.x86_64", haveModules: true, haveIBCore: true, distro: "fedora"},
			"kernel has no rdma_rxe module (kernel 6.12.0-55.el10.x86_64; no headers in /lib/modules/6.12.0-55.el10.x86_64/build: " +
				"the script installs linux-headers-6.12.0-55.el10.x86_64): build it (the script knows Debian and Ubuntu; elsewhere " +
				"give it your kernel's drivers/infiniband/sw/rxe with --source DIR) from the kernel's own distribution source and " +
				"headers: sudo scripts/ci/rxe-module.sh --install --load (in rdma-bench's repository; docs/ci.md); or run inside " +
				"the project's QEMU VM, whose Debian kernel has it: vm/run.sh -- COMMAND (make test does this)",
		},
		{
			// This project's machine: no /lib/modules for its kernel at all.
			"kernel without RDMA", "", kernelFacts{release: "6.18.44-fc-v657"},
			"kernel has no rdma_rxe module (kernel 6.18.44-fc-v657), nor the RDMA core it needs (no ib_core loaded, built in " +
				"or in /lib/modules/6.18.44-fc-v657), so building rdma_rxe (scripts/ci/rxe-module.sh) cannot help: use a kernel " +
				"with RDMA, or run inside the project's QEMU VM, whose Debian kernel has it: vm/run.sh -- COMMAND (make test does this)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := modprobeError(tt.out, errors.New("exit status 1"), tt.k)
			if !errors.Is(err, ErrNoModule) {
				t.Errorf("%v: want ErrNoModule", err)
			}
			if err.Error() != tt.want {
				t.Errorf("got  %q\nwant %q", err, tt.want)
			}
		})
	}
}

func TestListsModule(t *testing.T) {
	dir := t.TempDir()
	dep := filepath.Join(dir, "modules.dep")
	builtin := filepath.Join(dir, "modules.builtin")
	xz := filepath.Join(dir, "xz.dep")
	files := map[string]string{
		dep: "kernel/drivers/infiniband/core/ib_uverbs.ko: kernel/drivers/infiniband/core/ib_core.ko\n" +
			"kernel/drivers/infiniband/core/ib_core.ko:\n",
		builtin: "kernel/drivers/infiniband/core/ib_core.ko\n",
		xz:      "kernel/drivers/infiniband/core/ib_core_extra.ko:\nkernel/drivers/infiniband/core/ib_core.ko.zst:\n",
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{dep, builtin, xz} {
		if !listsModule(p, "ib_core") {
			t.Errorf("%s: ib_core not found", filepath.Base(p))
		}
	}
	if listsModule(dep, "rdma_rxe") {
		t.Error("modules.dep: rdma_rxe found where only ib_uverbs and ib_core are")
	}
	if listsModule(dep, "ib_uverb") {
		t.Error("modules.dep: a prefix of a module's name taken for the module")
	}
	if listsModule(filepath.Join(dir, "absent"), "ib_core") {
		t.Error("an absent file lists ib_core")
	}
}

func TestOSReleaseID(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]string{
		"PRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\nID=ubuntu\nID_LIKE=debian\n": "ubuntu",
		"PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n":                                            "debian",
		"ID=\"rhel\"\nID_LIKE=\"fedora\"\n":                                                                      "rhel",
		"NAME=nothing\n":                                                                                         "",
	} {
		p := filepath.Join(dir, "os-release")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := osReleaseID(p); got != want {
			t.Errorf("osReleaseID(%q) = %q, want %q", content, got, want)
		}
	}
	if got := osReleaseID(filepath.Join(dir, "absent")); got != "" {
		t.Errorf("absent file: %q", got)
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
