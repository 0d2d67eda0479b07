package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// offlineOutput is an offline command's arguments reading in, with an
// output that exists before it runs: a signal must leave it as it was.
type offlineOutput struct {
	args []string
	out  string // a file, or a directory of charts
}

// offlineSignalCase is command's case, its outputs in dir.
func offlineSignalCase(command, dir, in string) offlineOutput {
	return map[string]offlineOutput{
		"compare": {[]string{"compare", "--output-file", filepath.Join(dir, "out.txt"), fixtures + "base.json", in}, filepath.Join(dir, "out.txt")},
		"plot":    {[]string{"plot", "--dir", filepath.Join(dir, "plots"), in}, filepath.Join(dir, "plots")},
		"report":  {[]string{"report", "-o", filepath.Join(dir, "report.html"), in}, filepath.Join(dir, "report.html")},
		"history": {[]string{"history", "--output-file", filepath.Join(dir, "history.txt"), in}, filepath.Join(dir, "history.txt")},
	}[command]
}

// TestCompareSignals, TestPlotSignals, TestReportSignals: SIGINT,
// SIGTERM and SIGHUP stop compare, plot and report within 2 s, exit 130,
// say what stopped them, and leave their outputs as they were. The
// command reads a FIFO whose writer sends nothing, so it is surely
// running when the signal comes (the test's non-blocking open for
// writing succeeds only once the command has the FIFO open for reading).
func TestCompareSignals(t *testing.T) { testOfflineSignals(t, "compare") }
func TestPlotSignals(t *testing.T)    { testOfflineSignals(t, "plot") }
func TestReportSignals(t *testing.T)  { testOfflineSignals(t, "report") }
func TestHistorySignals(t *testing.T) { testOfflineSignals(t, "history") }

func testOfflineSignals(t *testing.T, command string) {
	skipInVM(t) // its 2 s bound is the host's
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.json")
			if err := syscall.Mkfifo(in, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			c := offlineSignalCase(command, dir, in)
			before := writeOldOutput(t, c.out)
			cmd := exec.Command(binary(t), c.args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w := waitReader(t, cmd, in)
			defer w.Close()
			start := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			code, took := waitExitCode(t, cmd, 5*time.Second)
			if code != 130 || took > 2*time.Second {
				t.Fatalf("%s: exit %d %v after %v, want 130 within 2 s; stderr: %s", command, code, took, sig, stderr.String())
			}
			want := "rdma-bench " + command + ": interrupted (" + signalText(sig) + " received): stopped, nothing written"
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			if after := snapshot(t, c.out); after != before {
				t.Errorf("%s changed after the signal:\nbefore %s\nafter  %s", c.out, before, after)
			}
			t.Logf("%v: exit 130 %v after the signal", sig, time.Since(start).Round(time.Millisecond))
		})
	}
}

// signalText is how Go names sig in the cause main gives.
func signalText(sig syscall.Signal) string {
	if sig == syscall.SIGINT {
		return "interrupt"
	}
	return sig.String()
}

// writeOldOutput makes out (a file, or a directory of one chart when it
// has no extension) as an earlier run left it, and returns its snapshot.
func writeOldOutput(t *testing.T, out string) string {
	t.Helper()
	if filepath.Ext(out) == "" {
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		out = filepath.Join(out, "old.svg")
	}
	if err := os.WriteFile(out, []byte("an earlier run's output\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return snapshot(t, filepath.Dir(out))
}

// snapshot lists the files of out's directory (out itself when it is
// one) with their contents.
func snapshot(t *testing.T, out string) string {
	t.Helper()
	dir := out
	if fi, err := os.Stat(out); err != nil || !fi.IsDir() {
		dir = filepath.Dir(out)
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range es {
		if e.Type().IsRegular() {
			data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			b.WriteString(e.Name() + "=" + string(data) + ";")
		} else {
			b.WriteString(e.Name() + "/;")
		}
	}
	return b.String()
}

// waitReader returns the FIFO path opened for writing once cmd has it
// open for reading: the command is then waiting for its input.
func waitReader(t *testing.T, cmd *exec.Cmd, path string) *os.File {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			return w
		}
		if !errors.Is(err, syscall.ENXIO) || time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the command did not open %s within 30 s: %v", path, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitExitCode waits for cmd to end, at most limit, and returns its exit
// code and how long it took; it fails when a signal killed it.
func waitExitCode(t *testing.T, cmd *exec.Cmd, limit time.Duration) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Fatalf("killed by %v instead of handling it", ws.Signal())
			}
			return ee.ExitCode(), time.Since(start)
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, time.Since(start)
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running %v after the signal", limit)
	}
	return -1, 0
}
