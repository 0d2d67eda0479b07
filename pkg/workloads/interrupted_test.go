package workloads

import (
	"context"
	"errors"
	"testing"
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
