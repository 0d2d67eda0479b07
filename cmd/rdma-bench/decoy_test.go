//go:build cgo

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

// TestDecoyDevice rehearses a hosted runner whose own NIC is an RDMA
// device too: beside the VM's device (listed first, the decoy), `softroce
// up` makes rxe9 on a second interface; a run given no -d measures on
// rxe9 and says why, -d still wins, and an rdma_cm connection that would
// land on another device than the run's is refused naming -d.
func TestDecoyDevice(t *testing.T) {
	decoy := testenv.Device(t)
	secondDevice(t, "rxe9", "rbdecoy1", "10.99.0.1/24")

	lat := []string{"run", "write_lat", "--loopback", "-s", "64", "-n", "200"}
	r := run(t, 2*time.Minute, lat...)
	if r.code != 0 || !strings.Contains(r.stdout, "device rxe9 port 1") ||
		!strings.Contains(r.stdout, "device chosen: made by rdma-bench softroce up, of 2 RDMA devices") {
		t.Errorf("a run given no -d beside the decoy %s: exit %d; want it on rxe9, saying why:\n%s%s", decoy, r.code, r.stdout, r.stderr)
	}
	r = run(t, 2*time.Minute, append(lat, "-d", decoy)...)
	if r.code != 0 || !strings.Contains(r.stdout, "device "+decoy+" port 1") || !strings.Contains(r.stdout, "device chosen: named by -d") {
		t.Errorf("-d %s: exit %d; want it on %s, named by -d:\n%s%s", decoy, r.code, decoy, r.stdout, r.stderr)
	}
	r = run(t, 2*time.Minute, append(lat, "--rdma-cm")...)
	if r.code != 0 || !strings.Contains(r.stdout, "device rxe9 port 1") {
		t.Errorf("an rdma_cm run beside the decoy: exit %d; want it on rxe9:\n%s%s", r.code, r.stdout, r.stderr)
	}

	// A server on rxe9 and a client on the decoy: the client's
	// connection resolves onto rxe9, which is not its device.
	port := testenv.FreePort(t)
	srv := start(t, "server", "-p", port, "--idle-timeout", "5s")
	srv.await(t, "listening on", 10*time.Second)
	srv.await(t, "RDMA runs on device rxe9 (made by rdma-bench softroce up", 10*time.Second)
	r = run(t, 2*time.Minute, "run", "write_lat", "127.0.0.1", "-p", port, "--rdma-cm", "-d", decoy, "-n", "200", "--idle-timeout", "5s")
	if r.code == 0 || !strings.Contains(r.stderr, "rdma_cm resolved the connection onto device rxe9, not "+decoy) ||
		!strings.Contains(r.stderr, "name rxe9 with -d") {
		t.Errorf("an rdma_cm client on %s to a server on rxe9: exit %d; want a refusal naming -d:\n%s%s", decoy, r.code, r.stdout, r.stderr)
	}
}

// secondDevice makes a soft-RoCE device called name on a dummy interface
// netdev with address cidr (`softroce up`, which also makes it the
// device a run given no -d takes), both removed when the test ends; it
// skips without root or where the interface cannot be made.
func secondDevice(t *testing.T, name, netdev, cidr string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to add an interface and a soft-RoCE device")
	}
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Skipf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	ip("link", "add", netdev, "type", "dummy")
	t.Cleanup(func() { exec.Command("ip", "link", "del", netdev).Run() })
	ip("addr", "add", cidr, "dev", netdev)
	ip("link", "set", netdev, "up")
	up := run(t, time.Minute, "softroce", "up", "--name", name, "--netdev", netdev)
	if up.code != 0 {
		t.Fatalf("softroce up: exit %d\n%s%s", up.code, up.stdout, up.stderr)
	}
	t.Cleanup(func() { run(t, time.Minute, "softroce", "down", name) })
}
