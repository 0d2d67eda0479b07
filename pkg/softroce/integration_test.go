package softroce

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/vishvananda/netlink"
)

// requireRDMA reports whether the run must have a working RDMA device
// (vm/run.sh sets RDMA_BENCH_REQUIRE_DEVICE=1): then a missing one fails the
// test instead of skipping it.
func requireRDMA() bool { return os.Getenv("RDMA_BENCH_REQUIRE_DEVICE") == "1" }

// needSoftRoCE skips (or, when RDMA is required, fails) the test unless this
// process can create soft-RoCE devices.
func needSoftRoCE(t *testing.T) {
	t.Helper()
	unavailable := func(reason string) {
		t.Helper()
		if requireRDMA() {
			t.Fatalf("soft-RoCE unavailable with RDMA_BENCH_REQUIRE_DEVICE=1: %s", reason)
		}
		t.Skipf("soft-RoCE unavailable: %s", reason)
	}
	if os.Geteuid() != 0 {
		unavailable("creating rdma devices needs root (vm/run.sh runs the tests as root in a VM)")
	}
	if err := loadModule(); err != nil {
		unavailable(err.Error())
	}
}

// testNetdev returns a network interface for a test rxe device: a fresh
// dummy interface (deleted by t.Cleanup), else lo if no rxe device uses it.
func testNetdev(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("rbt%d", os.Getpid()%100000)
	dummy := &netlink.Dummy{LinkAttrs: netlink.LinkAttrs{Name: name}}
	err := netlink.LinkAdd(dummy)
	if err == nil {
		t.Cleanup(func() {
			if err := netlink.LinkDel(dummy); err != nil {
				t.Errorf("delete dummy interface %s: %v", name, err)
			}
		})
		if err := netlink.LinkSetUp(dummy); err != nil {
			t.Fatalf("ip link set %s up: %v", name, err)
		}
		return name
	}
	t.Logf("no dummy interface (%v): trying lo", err)
	links, err := Status()
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(links, func(l Link) bool { return l.Netdev == "lo" && l.Type == TypeRXE }); i >= 0 {
		t.Skipf("no dummy interface and lo already has %s", links[i].Name)
	}
	return "lo"
}

func findLink(t *testing.T, name string) (Link, bool) {
	t.Helper()
	links, err := Status()
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	i := slices.IndexFunc(links, func(l Link) bool { return l.Name == name })
	if i < 0 {
		return Link{}, false
	}
	return links[i], true
}

func TestUpStatusDown(t *testing.T) {
	needSoftRoCE(t)
	const name = "rxe_t1"
	netdev := testNetdev(t)

	l, err := Up(name, netdev)
	if err != nil {
		t.Fatalf("Up(%q, %q): %v", name, netdev, err)
	}
	t.Cleanup(func() {
		if _, ok := findLink(t, name); ok {
			if err := Down(name); err != nil {
				t.Errorf("cleanup: Down(%q): %v", name, err)
			}
		}
	})
	if l.Name != name || l.Type != TypeRXE || l.Netdev != netdev {
		t.Errorf("Up returned %+v, want name %s type rxe netdev %s", l, name, netdev)
	}

	got, ok := findLink(t, name)
	if !ok {
		t.Fatalf("Status does not list %s after Up", name)
	}
	if got.Type != TypeRXE || got.Netdev != netdev || got.State == "" {
		t.Errorf("Status lists %+v, want type rxe, netdev %s and a state", got, netdev)
	}

	if _, err := Up(name, "lo"); err == nil || !strings.Contains(err.Error(), `"rxe_t1" is taken`) {
		t.Errorf("second Up(%q): got %v, want a name-taken error", name, err)
	}
	if _, err := Up("rxe_t2", "nosuch_if0"); err == nil ||
		!strings.Contains(err.Error(), `no network interface "nosuch_if0" (interfaces: `) ||
		!strings.Contains(err.Error(), "lo") {
		t.Errorf("Up on a missing interface: got %v, want an error listing the interfaces", err)
	}

	if err := Down(name); err != nil {
		t.Fatalf("Down(%q): %v", name, err)
	}
	if _, ok := findLink(t, name); ok {
		t.Errorf("Status still lists %s after Down", name)
	}
	if err := Down(name); err == nil || !strings.Contains(err.Error(), `no rdma device "rxe_t1"`) {
		t.Errorf("second Down(%q): got %v, want a no-such-device error", name, err)
	}
}

// TestUpWithoutModule checks the message a kernel without rdma_rxe gives.
func TestUpWithoutModule(t *testing.T) {
	err := loadModule()
	if err == nil || !errors.Is(err, ErrNoModule) {
		t.Skip("this kernel has rdma_rxe (or modprobe failed otherwise)")
	}
	_, err = Up("", "")
	if !errors.Is(err, ErrNoModule) {
		t.Fatalf("Up: got %v, want ErrNoModule", err)
	}
	release, _ := readAttr("/proc/sys/kernel/osrelease")
	// Which way out it names depends on this kernel (TestModprobeErrorMessages
	// has them all); each names the kernel, the script and the VM.
	for _, want := range []string{"(kernel " + release, "scripts/ci/rxe-module.sh", "vm/run.sh"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}
