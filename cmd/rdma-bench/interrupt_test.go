package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

// interrupt starts rdma-bench with args, sends it SIGINT once its stderr
// shows marker (a live figure of --report-interval: the timed run is under
// way), and returns its exit code, stdout and stderr; it fails if the
// marker does not appear within wait, or the process does not exit within
// limit of the signal.
func interrupt(t *testing.T, marker string, wait, limit time.Duration, args ...string) result {
	t.Helper()
	return signalAt(t, os.Interrupt, marker, wait, limit, args...)
}

// signalAt is interrupt with another signal.
func signalAt(t *testing.T, sig os.Signal, marker string, wait, limit time.Duration, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	var out bytes.Buffer
	errb := &syncBuffer{}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = &out, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	seen := make(chan struct{})
	var once sync.Once
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			errb.WriteLine(sc.Text())
			if strings.Contains(sc.Text(), marker) {
				once.Do(func() { close(seen) })
			}
		}
	}()
	done := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		pw.Close()
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("rdma-bench exited before the signal (%v): %s", err, errb.String())
	case <-seen:
	case <-time.After(wait):
		cmd.Process.Kill()
		<-done
		t.Fatalf("no %q on stderr after %v: %s", marker, wait, errb.String())
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("rdma-bench still running %v after %v: %s", limit, sig, errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("killed by %v instead of handling it: %s", ws.Signal(), errb.String())
		}
	}
	time.Sleep(100 * time.Millisecond) // the last stderr lines
	return result{code, out.String(), errb.String()}
}

// checkPartial wants a non-zero exit that names the interruption and a
// JSON document holding the part of the run that was measured.
func checkPartial(t *testing.T, r result, workload string) {
	t.Helper()
	if r.code == 0 || !strings.Contains(r.stderr, "interrupted") {
		t.Fatalf("exit %d, stderr %q: want a non-zero exit naming the interruption", r.code, r.stderr)
	}
	var doc struct {
		Results []struct {
			Workload   string
			Iterations int
			Ops        uint64
			Status     string
			Reason     string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("json output after SIGINT: %v\n%s", err, r.stdout)
	}
	if len(doc.Results) != 1 || doc.Results[0].Workload != workload || doc.Results[0].Ops == 0 ||
		doc.Results[0].Status != "partial" || !strings.Contains(doc.Results[0].Reason, "interrupted") {
		t.Fatalf("want the %s figures measured before SIGINT, marked partial:\n%s", workload, r.stdout)
	}
	t.Logf("%d operations measured before SIGINT; %s", doc.Results[0].Ops, strings.TrimSpace(r.stderr))
}

// TestInterruptTCP: Ctrl-C in a long TCP baseline run stops it at once
// and prints what was measured.
func TestInterruptTCP(t *testing.T) {
	for _, w := range []string{"tcp_lat", "tcp_bw"} {
		t.Run(w, func(t *testing.T) {
			r := interrupt(t, "cumulative:", time.Minute, 10*time.Second, "run", w, "--loopback", "-D", "120", "-o", "json", "--report-interval", "250ms")
			checkPartial(t, r, w)
		})
	}
}

// TestHangupAndTerm: SIGHUP and SIGTERM stop a run as Ctrl-C does, and an
// interrupted --repeat saves what it measured, marked partial with why.
func TestHangupAndTerm(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			r := signalAt(t, sig, "cumulative:", time.Minute, 10*time.Second,
				"run", "tcp_lat", "--loopback", "-D", "120", "--repeat", "2", "-o", "json", "--report-interval", "250ms")
			checkPartial(t, r, "tcp_lat")
			if !strings.Contains(r.stdout, "1 of 2 runs measured") {
				t.Errorf("the partial point does not say its runs fell short of --repeat:\n%s", r.stdout)
			}
		})
	}
}

// TestInterruptRDMA: Ctrl-C in a long RDMA run, in loopback and as a
// client of a server process, releases everything and prints what was
// measured; the server survives a client that went away. (An interrupted
// bandwidth run counts the operations a signalled completion confirmed:
// 4 KiB messages confirm 100 before the first live figure.)
func TestInterruptRDMA(t *testing.T) {
	testenv.Device(t)
	for _, w := range []string{"write_lat", "send_bw"} {
		t.Run(w+"/loopback", func(t *testing.T) {
			r := interrupt(t, "cumulative:", time.Minute, 15*time.Second, "run", w, "--loopback", "-D", "120", "-s", "4K", "-o", "json", "--report-interval", "250ms")
			checkPartial(t, r, w)
		})
		t.Run(w+"/client", func(t *testing.T) {
			port := testenv.FreePort(t)
			srv, _ := startServer(t, port)
			r := interrupt(t, "cumulative:", time.Minute, 15*time.Second, "run", w, "127.0.0.1", "-p", port, "-D", "120", "-s", "4K", "-o", "json", "--report-interval", "250ms")
			checkPartial(t, r, w)
			done := make(chan error, 1)
			go func() { done <- srv.Wait() }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("server still running 30 s after its client was interrupted")
			}
		})
	}
}
