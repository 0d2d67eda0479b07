// Package testenv decides whether tests that need an RDMA device run, skip
// or fail.
package testenv

import (
	"os"
	"sort"
	"testing"
)

// RequireEnv is the environment variable that says an RDMA device must be
// present (the soft-RoCE VM harness sets it): tests then fail instead of
// skipping when there is none.
const RequireEnv = "RDMA_BENCH_REQUIRE_DEVICE"

// DeviceEnv names the device tests use; the first device when unset.
const DeviceEnv = "RDMA_BENCH_DEVICE"

// sysfs is where the kernel lists RDMA devices.
var sysfs = "/sys/class/infiniband"

// Devices lists the RDMA devices the kernel exposes.
func Devices() []string {
	entries, err := os.ReadDir(sysfs)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// Required reports whether the environment says a device must be present.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Device returns the RDMA device a test should use. Where there is none it
// skips the test with a reason, or fails it when RDMA_BENCH_REQUIRE_DEVICE=1.
func Device(t testing.TB) string {
	t.Helper()
	devs := Devices()
	if len(devs) == 0 {
		if Required() {
			t.Fatalf("%s=1 but this host has no RDMA device (%s is empty or missing)", RequireEnv, sysfs)
		}
		t.Skipf("no RDMA device on this host (%s is empty); run `make test` to use soft-RoCE in a VM", sysfs)
	}
	if d := os.Getenv(DeviceEnv); d != "" {
		return d
	}
	return devs[0]
}
