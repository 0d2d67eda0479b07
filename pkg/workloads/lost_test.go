package workloads

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestLostError(t *testing.T) {
	rxe := "/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so"
	err := lostError(10*time.Second, "rxe0", rxe, "50.0")
	if !errors.Is(err, ErrLostCompletion) {
		t.Fatalf("%v is not ErrLostCompletion", err)
	}
	for _, want := range []string{"a completion was lost (the provider or the device dropped it)", "no completion for 10s while the peer was alive",
		"device rxe0", "provider " + rxe, "rdma-core 50.0", "rdma-core 50's rxe provider", "LD_LIBRARY_PATH"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	for _, tc := range []struct{ provider, version string }{{rxe, "44.0"}, {"/x/libmlx5-rdmav34.so", "50.0"}, {"", ""}} {
		if msg := lostError(time.Second, "d", tc.provider, tc.version).Error(); strings.Contains(msg, "known to drop") {
			t.Errorf("%s %s: a known fault named: %q", tc.provider, tc.version, msg)
		}
	}
	if msg := lostError(time.Second, "", "", "").Error(); !strings.Contains(msg, "device unknown, provider unknown, rdma-core unknown") {
		t.Errorf("unknowns not said: %q", msg)
	}
}
