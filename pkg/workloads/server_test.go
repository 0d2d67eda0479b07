package workloads

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/point"
)

// serveOneShot starts a one-shot server pinning size, with Retry or not,
// and returns its port and the channel its Serve's error arrives on.
func serveOneShot(t *testing.T, ctx context.Context, size int, retry bool) (int, *lockedBuilder, <-chan error) {
	t.Helper()
	ln, err := exchange.Listen("127.0.0.1", 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	pinned := point.NewSpec("tcp_lat")
	pinned.Size = size
	log := &lockedBuilder{}
	sv := &Server{Local: DefaultLocal(), Explicit: pinned.Explicit([]string{"size"}), Retry: retry, Log: log}
	done := make(chan error, 1)
	go func() { done <- sv.Serve(ctx, ln) }()
	return ln.Port(), log, done
}

func tcpLat(size int) point.Spec {
	s := point.NewSpec("tcp_lat")
	s.Size, s.Iterations = size, 100
	return s
}

// TestOneShotSurvivesMismatch: a one-shot server refuses a client whose
// parameters differ from its own, then serves the next, correct, client,
// and only then ends.
func TestOneShotSurvivesMismatch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	port, log, done := serveOneShot(t, ctx, 64, true)
	_, err := RunClient(ctx, resolved(t, tcpLat(2)), DefaultLocal(), "127.0.0.1", port, false)
	if err == nil || !strings.Contains(err.Error(), "size") {
		t.Fatalf("a client asking for 2 bytes of a server pinned at 64: %v, want a refusal naming the size", err)
	}
	select {
	case err := <-done:
		t.Fatalf("the one-shot server ended after refusing a mismatched client: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if _, err := RunClient(ctx, resolved(t, tcpLat(64)), DefaultLocal(), "127.0.0.1", port, false); err != nil {
		t.Fatalf("the correct client after a refused one: %v", err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the one-shot server's run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the one-shot server did not end after its run")
	}
	if l := strings.Join(log.lines(), "\n"); !strings.Contains(l, "refused a client") || !strings.Contains(l, "served tcp_lat 64 bytes") {
		t.Errorf("the server's log does not show the refusal and the run:\n%s", l)
	}
}

// TestOneShotWithoutRetryEnds: without Retry (an in-process pair's
// server) a refusal still ends the one-shot server, with the refusal.
func TestOneShotWithoutRetryEnds(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	port, _, done := serveOneShot(t, ctx, 64, false)
	if _, err := RunClient(ctx, resolved(t, tcpLat(2)), DefaultLocal(), "127.0.0.1", port, false); err == nil {
		t.Fatal("a mismatched client was served")
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "size") {
			t.Errorf("Serve returned %v, want the refusal naming the size", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the one-shot server without Retry kept waiting after a refusal")
	}
}

// TestOneShotInterruptedReturnsRunError: a one-shot server interrupted
// during its run returns the run's error (interrupted), not the end of
// its wait for clients.
func TestOneShotInterruptedReturnsRunError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port, log, done := serveOneShot(t, ctx, 64, true)
	spec := tcpLat(64)
	spec.Iterations, spec.Duration = 0, time.Minute
	cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer ccancel()
	go RunClient(cctx, resolved(t, spec), DefaultLocal(), "127.0.0.1", port, false)
	// The run under way: a second client is told the server is busy (it
	// asks for a size the server refuses, lest it be served first).
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, err := RunClient(cctx, resolved(t, tcpLat(2)), DefaultLocal(), "127.0.0.1", port, false)
		if err != nil && strings.Contains(err.Error(), "busy") {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("no run under way after 10 s (%v): %q", err, log.lines())
		}
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, errInterrupted) {
			t.Errorf("Serve returned %v, want the interrupted run's error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not end within 10 s of the interruption")
	}
}
