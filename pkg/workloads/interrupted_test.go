package workloads

import (
	"context"
	"errors"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// TestInterrupted: an error an interruption caused says "interrupted" and
// why, keeping what failed; others pass unchanged.
func TestInterrupted(t *testing.T) {
	connect := errors.New("connect 127.0.0.1:44517: operation was canceled")
	if got := interrupted(context.Background(), connect); got != connect {
		t.Errorf("not interrupted: %v", got)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupt received"))
	got := interrupted(ctx, connect)
	want := "interrupted: interrupt received (the run stopped at: connect 127.0.0.1:44517: operation was canceled)"
	if got == nil || got.Error() != want || !errors.Is(got, errInterrupted) {
		t.Errorf("got %v, want %s", got, want)
	}
	if again := interrupted(ctx, got); again != got {
		t.Errorf("wrapped twice: %v", again)
	}
	if interrupted(ctx, nil) != nil {
		t.Error("no error, no interruption to report")
	}
}

// TestSamePort: two processes on one host's port read the same counters,
// whatever GID each uses; another port, device or host does not.
func TestSamePort(t *testing.T) {
	dev := func(name string, port int, gid string) *report.Device {
		return &report.Device{Name: name, Port: port, GID: gid}
	}
	at := func(host string, d *report.Device) figures {
		return figures{Host: report.Host{Hostname: host}, Device: d}
	}
	a := at("h", dev("rxe0", 1, "::ffff:127.0.0.1"))
	for _, c := range []struct {
		b    figures
		want bool
	}{
		{at("h", dev("rxe0", 1, "::ffff:127.0.0.1")), true},
		{at("h", dev("rxe0", 1, "fe80::1")), true}, // another GID of the port: the same counters
		{at("h", dev("rxe0", 2, "::ffff:127.0.0.1")), false},
		{at("h", dev("rxe1", 1, "::ffff:127.0.0.1")), false},
		{at("g", dev("rxe0", 1, "::ffff:127.0.0.1")), false},
		{at("h", nil), false},
	} {
		if got := samePort(a, c.b); got != c.want {
			t.Errorf("samePort(%+v) = %t, want %t", c.b.Device, got, c.want)
		}
	}
}
