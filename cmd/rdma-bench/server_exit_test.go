package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

// serverExit sends SIGINT to srv and returns its exit code, failing if it
// does not exit within 15 s.
func serverExit(t *testing.T, srv *exec.Cmd) int {
	t.Helper()
	if err := srv.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(15 * time.Second):
		t.Fatal("the server did not exit within 15 s of SIGINT")
	}
	return -1
}

// TestOneShotServerInterrupted: a one-shot server interrupted during its
// run, or before any client came, exits 130 naming the interruption, like
// an interrupted run; a persistent server's Ctrl-C is its normal end (0).
func TestOneShotServerInterrupted(t *testing.T) {
	t.Run("mid-run", func(t *testing.T) {
		port := testenv.FreePort(t)
		srv, stderr := startServer(t, port)
		cl := exec.Command(binary(t), "run", "tcp_lat", "127.0.0.1", "-p", port, "-D", "60", "--report-interval", "250ms")
		pr, pw := io.Pipe()
		cl.Stderr = pw
		if err := cl.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cl.Process.Kill(); cl.Wait(); pw.Close() })
		live := make(chan struct{})
		go func() {
			sc := bufio.NewScanner(pr)
			for sc.Scan() {
				if strings.Contains(sc.Text(), "cumulative:") {
					close(live)
					io.Copy(io.Discard, pr)
					return
				}
			}
		}()
		select {
		case <-live:
		case <-time.After(30 * time.Second):
			t.Fatal("the client's run showed no live figure within 30 s")
		}
		if code := serverExit(t, srv); code != 130 || !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("exit %d, stderr %q: want 130 naming the interruption", code, stderr.String())
		}
	})
	t.Run("waiting", func(t *testing.T) {
		srv, stderr := startServer(t, testenv.FreePort(t))
		if code := serverExit(t, srv); code != 130 {
			t.Errorf("exit %d, stderr %q: want 130", code, stderr.String())
		}
	})
	t.Run("persistent", func(t *testing.T) {
		srv, stderr := startServer(t, testenv.FreePort(t), "--persistent")
		if code := serverExit(t, srv); code != 0 {
			t.Errorf("exit %d, stderr %q: want 0", code, stderr.String())
		}
	})
}

// TestOneShotServerSurvivesMismatch: a one-shot server pinned at 64 bytes
// refuses a client asking for 128, then serves the next client, which asks
// for 64 (it was: connection refused, the server gone), and exits 0.
func TestOneShotServerSurvivesMismatch(t *testing.T) {
	port := testenv.FreePort(t)
	srv, stderr := startServer(t, port, "-s", "64")
	r := run(t, 30*time.Second, "run", "tcp_lat", "127.0.0.1", "-p", port, "-s", "128", "-n", "100")
	if r.code == 0 || !strings.Contains(r.stderr, "parameter mismatch: size: local 128, peer 64") {
		t.Fatalf("the mismatched client: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := run(t, 30*time.Second, "run", "tcp_lat", "127.0.0.1", "-p", port, "-s", "64", "-n", "100"); r.code != 0 {
		t.Fatalf("the next client: exit %d, stderr %q; server: %s", r.code, r.stderr, stderr.String())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the one-shot server after its run: %v: %s", err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("the one-shot server still running 15 s after its run: %s", stderr.String())
	}
}
