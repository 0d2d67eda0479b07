package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// savedDoc is the part of a saved document the tests read.
type savedDoc struct {
	SchemaVersion int `json:"schema_version"`
	Tool          struct{ Version, Commit string }
	Device        *struct{ Name string }
	Results       []struct {
		Workload   string
		Transport  string
		Completion string
		Status     string
		SizeBytes  int `json:"size_bytes"`
		Ops        uint64
		Clock      string
		Cpu        struct {
			Local, Remote *struct {
				WallS float64 `json:"wall_s"`
			}
			OneProcess bool `json:"one_process"`
		}
	}
}

// binary returns the rdma-bench binary: $RDMA_BENCH_BIN, or one built for
// the tests.
func binary(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("RDMA_BENCH_BIN"); b != "" {
		return b
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rdma-bench-test")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "rdma-bench")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// result is one finished command.
type result struct {
	code   int
	stdout string
	stderr string
}

// said is what the command said on stderr of its own (its "rdma-bench:"
// lines: errors, warnings, caveats), in one line, so that a failure's
// first line names its cause even where only a part of the log is read.
func (r result) said() string {
	var lines []string
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "rdma-bench") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	return strings.Join(lines, " | ")
}

func run(t *testing.T, timeout time.Duration, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("rdma-bench %s: did not finish within %v\nstderr: %s", strings.Join(args, " "), timeout, errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

// runHere runs a command line in this process, as main does once the
// process is set up (execute), bounded by timeout: for the commands that
// read saved documents, whose tests need no process of their own.
func runHere(t *testing.T, timeout time.Duration, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var out, errb bytes.Buffer
	code := execute(ctx, args, &out, &errb)
	if ctx.Err() != nil {
		t.Fatalf("rdma-bench %s: did not finish within %v\nstderr: %s", strings.Join(args, " "), timeout, errb.String())
	}
	return result{code, out.String(), errb.String()}
}

// startServer starts `rdma-bench server` and waits until it says it
// listens (a probe connection would count as its one client).
func startServer(t *testing.T, port string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"server", "-p", port}, args...)...)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		pw.Close()
	})
	buf := &syncBuffer{}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			buf.WriteLine(sc.Text())
			if strings.Contains(sc.Text(), "listening on") {
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatalf("server did not listen on %s: %s", port, buf.String())
	}
	return cmd, buf
}

// syncBuffer collects a process's stderr lines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) WriteLine(l string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.WriteString(l + "\n")
}

// Write lets the buffer stand as a command's stderr.
func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "nosuch", "--loopback"}, `unknown workload "nosuch"`},
		{[]string{"run", "raw_ethernet_bw", "--loopback"}, `unknown workload "raw_ethernet_bw": choose one of write_lat`},
		{[]string{"run", "raw_ethernet_lat", "--loopback"}, "; perftest's raw_ethernet_lat: raw Ethernet (raw_ethernet_* tests, raw packet QPs) is not supported"},
		{[]string{"run", "ib_write_bw", "--loopback"}, "; perftest's ib_write_bw is rdma-bench's write_bw"},
		{[]string{"server", "raw_ethernet_bw"}, "perftest's raw_ethernet_bw: raw Ethernet"},
		{[]string{"run", "write_bw", "--loopback", "--use_cuda=0"}, "unknown flag --use_cuda (perftest's): GPU memory is not supported"},
		{[]string{"run", "read_lat", "-c", "UD", "--loopback"}, "read_lat cannot run over UD"},
		{[]string{"run", "atomic_bw", "-c", "UC", "--loopback"}, "atomic_bw cannot run over UC"},
		{[]string{"run", "write_lat", "-c", "XRC", "--loopback"}, "choose RC, UC, UD, TCP"},
		{[]string{"run", "write_lat", "-s", "0", "--loopback"}, `size "0": must be at least 1 byte`},
		{[]string{"run", "write_lat", "-s", "12Q", "--loopback"}, `size "12Q"`},
		{[]string{"run", "atomic_lat", "-s", "16", "--loopback"}, "atomic operations move exactly 8 bytes"},
		{[]string{"run", "write_lat", "-n", "0", "--loopback"}, `"0" for "-n, --iters" flag: want a whole number from 1 to`},
		{[]string{"run", "write_lat", "-n", "-5", "--loopback"}, "want a whole number from 1 to"},
		{[]string{"run", "write_lat", "-n", "5", "-D", "2", "--loopback"}, "cannot go together"},
		{[]string{"run", "write_lat", "-D", "0", "--loopback"}, "want seconds from 0.001 to 86400"},
		{[]string{"run", "write_lat", "-D", "1e12", "--loopback"}, "want seconds from 0.001 to 86400"},
		{[]string{"run", "write_lat", "-D", "NaN", "--loopback"}, "want seconds from 0.001 to 86400"},
		{[]string{"run", "write_lat", "--warmup", "-5", "--loopback"}, "want a whole number from 0 to"},
		{[]string{"run", "write_lat", "-q", "2", "--loopback"}, "-q applies to write_bw, read_bw, send_bw, atomic_bw, not write_lat"},
		{[]string{"run", "write_bw", "-q", "3", "--threads", "2", "--loopback"}, "must divide evenly among the threads"},
		{[]string{"run", "write_bw", "-Q", "500", "-t", "100", "--loopback"}, "-Q 500"},
		{[]string{"run", "read_lat", "--bidir", "--loopback"}, "-b applies to"},
		{[]string{"run", "tcp_lat", "-q", "2", "--loopback"}, "-q applies to"},
		{[]string{"run", "tcp_bw", "-b", "--loopback"}, "-b applies to"},
		{[]string{"run", "tcp_lat", "-c", "RC", "--loopback"}, "tcp_lat cannot run over RC"},
		{[]string{"run", "tcp_lat", "--validate", "--loopback"}, "--validate applies to"},
		{[]string{"run", "write_lat", "--loopback", "--cpu", "4095"}, "--cpu 4095: cpus 4095..4096 (one per measuring thread) not among"},
		{[]string{"run", "tcp_lat", "--loopback", "--cpu", "-5"}, "--cpu -5"},
		{[]string{"run", "tcp_lat", "--loopback", "--numa-node", "x"}, `invalid argument "x" for "--numa-node" flag: want auto, off or a node number (0, 1, ...)`},
		{[]string{"run", "tcp_lat", "--loopback", "--numa-node", "1000"}, "--numa-node 1000: no such node: the online nodes are"},
		{[]string{"run", "tcp_lat", "--loopback", "--numa_node", "1000"}, "--numa-node 1000: no such node"},
		{[]string{"run", "tcp_lat", "--loopback", "--numa-node", "0", "--cpu", "0"}, "--cpu 0 and --numa-node 0 cannot go together"},
		{[]string{"server", "--numa-node", "1000"}, "--numa-node 1000: no such node"},
		{[]string{"run", "write_lat", "--loopback", "--idle-timeout", "0s"}, "--idle-timeout 0s: must be at least 100ms"},
		{[]string{"run", "write_lat", "--loopback", "--report-interval", "1ms"}, "--report-interval 1ms: must be at least 10ms"},
		{[]string{"run", "write_lat", "--loopback", "--mtu", "1500"}, "--mtu 1500"},
		{[]string{"run", "write_lat", "--loopback", "-i", "0"}, "-i 0: device port must be 1..255"},
		{[]string{"run", "write_lat", ""}, `empty host ""`},
		{[]string{"run", "write_lat", "--loopback", "-o", "xml"}, `unknown output "xml": choose one of table, json, csv, hgrm, perftest, comparison`},
		{[]string{"run", "write_bw", "--loopback", "-o", "hgrm"}, "-o hgrm writes latency histograms and write_bw measures bandwidth: choose a latency workload, or -o table, json, csv, perftest, comparison"},
		{[]string{"run", "tcp_bw", "-o", "hgrm", "host"}, "-o hgrm writes latency histograms and tcp_bw measures bandwidth: choose a latency workload, or -o table, json, csv, perftest, ndjson\n"},
		{[]string{"run", "tcp_lat", "--loopback", "-o", "comparison"}, "-o comparison puts an RDMA workload beside its TCP baseline, and tcp_lat has none (it is a baseline itself, or has no TCP counterpart): choose an RDMA workload, or -o table, json, csv, hgrm, perftest, ndjson\n"},
		{[]string{"run", "tcp_lat", "--loopback", "--output-file", "/nonexistent/dir/x.json"}, "--output-file /nonexistent/dir/x.json: cannot create a file in directory /nonexistent/dir"},
		{[]string{"run", "write_lat"}, "name the server's host"},
		{[]string{"run", "write_lat", "-p", "0", "host"}, "-p 0: the control port must be 1..65535"},
		{[]string{"server", "--report-interval", "1s"}, "--report-interval belongs on the client"},
		{[]string{"server", "-a"}, "--all does not apply to the server"},
		{[]string{"server", "-n", "0"}, "want a whole number from 1 to"},
		{[]string{"server", "-n", "10", "-D", "5"}, "cannot go together"},
		{[]string{"server", "--warmup", "-7"}, "want a whole number from 0 to"},
		{[]string{"server", "--cpu", "4095"}, "--cpu 4095: cpu 4095 not among"},
		{[]string{"server", "--idle-timeout", "-5s"}, "--idle-timeout -5s: must be at least 100ms"},
		{[]string{"server", "write_lat", "-q", "2"}, "-q applies to"},
		{[]string{"suite", "--loopback", "--sizes", "2,12Q"}, `--sizes: size "12Q"`},
		{[]string{"suite", "--loopback", "-s", "4"}, "--size does not apply to the suite"},
		{[]string{"suite", ""}, "empty host"},
		{[]string{"devices", "-o", "yaml"}, `unknown --output "yaml"`},
		{[]string{"version", "extra"}, `unexpected argument "extra"`},
		{[]string{"run", "tcp_lat", "--loopback", "--repeat", "0"}, "--repeat 0: must be 1..1000"},
		{[]string{"suite", "--loopback", "--repeat", "5000"}, "--repeat 5000: must be 1..1000"},
		{[]string{"run", "tcp_lat", "--loopback", "--label", "a/b"}, `--label "a/b": want up to 64 printable characters, no '/'`},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
	}
	if os.Getenv("RDMA_BENCH_IN_VM") != "" {
		t.Skip("no case needs a device: the host's run covers them (a process takes seconds to start under emulation)")
	}
	binary(t) // built once, before the clock starts
	for _, c := range cases {
		start := time.Now()
		r := run(t, 30*time.Second, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "panic") {
			t.Errorf("rdma-bench %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("rdma-bench %s: took %v to refuse", strings.Join(c.args, " "), d)
		}
	}
}

func TestConnectRefused(t *testing.T) {
	port := testenv.FreePort(t)
	start := time.Now()
	r := run(t, 30*time.Second, "run", "tcp_lat", "127.0.0.1", "-p", port)
	want := "connect 127.0.0.1:" + port + ": connection refused"
	if r.code == 0 || !strings.Contains(r.stderr, want) {
		t.Fatalf("exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}
	if time.Since(start) > 15*time.Second {
		t.Errorf("refusal took %v", time.Since(start))
	}
}

func TestDevices(t *testing.T) {
	if len(testenv.Devices()) == 0 && !testenv.Required() {
		r := run(t, 30*time.Second, "devices")
		if r.code == 0 || !strings.Contains(r.stderr, "no RDMA device") || !strings.Contains(r.stderr, "softroce up") {
			t.Fatalf("devices without a device: exit %d, %q", r.code, r.stderr)
		}
		return
	}
	dev := testenv.Device(t)
	r := run(t, 30*time.Second, "devices", "-o", "json")
	if r.code != 0 {
		t.Fatalf("devices: exit %d: %s", r.code, r.stderr)
	}
	var devs []struct {
		Name  string
		Ports []struct {
			State string
			GIDs  []struct {
				Type, GID string
				Default   bool
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &devs); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range devs {
		if d.Name != dev {
			continue
		}
		for _, p := range d.Ports {
			for _, g := range p.GIDs {
				if g.Default && g.Type == "RoCE v2" && strings.HasPrefix(g.GID, "::ffff:") {
					found = true
				}
			}
		}
	}
	if !found {
		t.Fatalf("devices does not list %s with a default RoCE v2 IPv4 GID:\n%s", dev, r.stdout)
	}
	// What does not exist is bad input, named with what does.
	for _, c := range []struct{ flag, val, want string }{
		{"-d", "nosuch", `no such RDMA device "nosuch": devices present: ` + dev},
		{"-x", "99", "gid index 99 out of range: populated indexes are"},
		{"-i", "9", "no such port: port 9 of " + dev + ": it has ports 1..1"},
	} {
		if r := run(t, 30*time.Second, "run", "write_lat", "--loopback", c.flag, c.val); r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s %s: exit %d, %q; want exit 2 and %q", c.flag, c.val, r.code, r.stderr, c.want)
		}
	}
}

// TestServerClientProcesses runs each workload as two processes.
func TestServerClientProcesses(t *testing.T) {
	testenv.Device(t)
	cases := [][]string{
		{"write_lat", "-n", "200"},
		{"write_lat", "-n", "200", "-e"},
		{"read_lat", "-n", "200"},
		{"send_lat", "-n", "200", "-c", "UD", "-e"},
		{"atomic_lat", "-n", "200", "-A", "cswap"},
		{"write_bw", "-n", "500", "-s", "4K", "-q", "2", "--threads", "2"},
		{"read_bw", "-n", "300", "-s", "4K", "-e"},
		{"send_bw", "-n", "500", "-s", "4K", "-b"},
		{"send_bw", "-D", "1", "-s", "1K", "-c", "UC"},
		{"atomic_bw", "-n", "500"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c, " "), func(t *testing.T) {
			port := testenv.FreePort(t)
			srv, _ := startServer(t, port)
			r := run(t, 90*time.Second, append([]string{"run", c[0], "127.0.0.1", "-p", port, "--validate", "-o", "json"}, c[1:]...)...)
			if r.code != 0 {
				t.Fatalf("client: exit %d: %s", r.code, r.stderr)
			}
			var doc struct {
				Results []struct {
					Workload string
					Cpu      struct{ Local, Remote *struct{} }
				}
			}
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
				t.Fatalf("json output: %v\n%s", err, r.stdout)
			}
			if len(doc.Results) != 1 || doc.Results[0].Workload != c[0] || doc.Results[0].Cpu.Remote == nil {
				t.Fatalf("want one %s result with the server's cpu:\n%s", c[0], r.stdout)
			}
			done := make(chan error, 1)
			go func() { done <- srv.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("server: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("server did not exit after its one run")
			}
		})
	}
}

func TestParameterMismatchRefused(t *testing.T) {
	testenv.Device(t)
	port := testenv.FreePort(t)
	startServer(t, port, "-s", "64")
	r := run(t, 30*time.Second, "run", "send_lat", "127.0.0.1", "-p", port, "-s", "128")
	if r.code == 0 || !strings.Contains(r.stderr, "parameter mismatch: size: local 128, peer 64") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestPeerKilledMidRun kills the server during a long run: the client
// must stop within a bounded time with an error, not hang.
func TestPeerKilledMidRun(t *testing.T) {
	testenv.Device(t)
	for _, w := range []string{"write_bw", "write_lat"} {
		t.Run(w, func(t *testing.T) {
			port := testenv.FreePort(t)
			srv, _ := startServer(t, port)
			go func() {
				time.Sleep(8 * time.Second)
				srv.Process.Kill()
			}()
			start := time.Now()
			r := run(t, 60*time.Second, "run", w, "127.0.0.1", "-p", port, "-D", "40", "--idle-timeout", "5s")
			if r.code == 0 {
				t.Fatalf("client succeeded although the server was killed: %s", r.stdout)
			}
			if el := time.Since(start); el > 38*time.Second {
				t.Errorf("client took %v to notice the dead server", el)
			}
			t.Logf("client error: %s", strings.TrimSpace(r.stderr))
		})
	}
}

// TestTCPSweepOneShotServer: a sweep of the TCP baseline against a
// one-shot server runs every size (the server keeps serving while the
// client announces more), then the server ends, as for RDMA.
func TestTCPSweepOneShotServer(t *testing.T) {
	for _, args := range [][]string{
		{"tcp_lat", "-a", "--sweep-max", "8", "-n", "200"},
		{"tcp_bw", "-a", "--sweep-min", "1K", "--sweep-max", "4K", "-n", "300", "-e"},
	} {
		t.Run(args[0], func(t *testing.T) {
			port := testenv.FreePort(t)
			srv, buf := startServer(t, port)
			r := run(t, 90*time.Second, append([]string{"run", args[0], "127.0.0.1", "-p", port, "-o", "json"}, args[1:]...)...)
			if r.code != 0 {
				t.Fatalf("client: exit %d: %s", r.code, r.stderr)
			}
			var doc savedDoc
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Results) != 3 {
				t.Fatalf("%d results, want 3 sizes:\n%s", len(doc.Results), r.stdout)
			}
			for _, res := range doc.Results {
				if res.Status != "ok" || res.Cpu.Remote == nil || res.Transport != "TCP" {
					t.Errorf("%d bytes: status %s, remote cpu %v, transport %s", res.SizeBytes, res.Status, res.Cpu.Remote, res.Transport)
				}
			}
			waitExit(t, srv, 30*time.Second)
			if n := strings.Count(buf.String(), "served "+args[0]); n != 3 {
				t.Errorf("the server logged %d runs, want 3:\n%s", n, buf.String())
			}
		})
	}
}

// TestPersistentServerServesAndLogsEveryWorkload: one persistent server
// serves RDMA and TCP clients on one port and logs each run.
func TestPersistentServerServesAndLogsEveryWorkload(t *testing.T) {
	testenv.Device(t)
	port := testenv.FreePort(t)
	_, buf := startServer(t, port, "--persistent")
	for _, w := range []string{"write_lat", "tcp_lat", "send_bw", "tcp_bw"} {
		r := run(t, 90*time.Second, "run", w, "127.0.0.1", "-p", port, "-n", "200", "-s", "1K")
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", w, r.code, r.stderr)
		}
		if !strings.Contains(r.stdout, w) {
			t.Errorf("%s: no table:\n%s", w, r.stdout)
		}
	}
	time.Sleep(200 * time.Millisecond)
	for _, w := range []string{"write_lat", "tcp_lat", "send_bw", "tcp_bw"} {
		if !strings.Contains(buf.String(), "served "+w+" 1024 bytes") {
			t.Errorf("the server did not log its %s run:\n%s", w, buf.String())
		}
	}
}

// waitExit waits for a one-shot server to end, successfully.
func waitExit(t *testing.T, srv *exec.Cmd, limit time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("server: %v", err)
		}
	case <-time.After(limit):
		t.Fatal("server did not exit after its one run")
	}
}

// TestVersion: the version and commit a binary reports, from the
// Makefile's flags or, for a plain go build, the module's build
// information; never a placeholder.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		r := run(t, time.Minute, args...) // a hang, not a speed: under emulation a start has taken over 10 s
		if r.code != 0 || !strings.HasPrefix(r.stdout, "rdma-bench ") || !strings.Contains(r.stdout, "(commit ") ||
			strings.Contains(r.stdout, "commit -)") {
			t.Errorf("%v: exit %d, %q", args, r.code, r.stdout)
		}
	}
	if os.Getenv("RDMA_BENCH_IN_VM") != "" {
		return // building takes long under emulation; the host run covers it
	}
	if err := exec.Command("git", "rev-parse", "HEAD").Run(); err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "rdma-bench")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	head, _ := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil || !strings.Contains(string(out), "(commit "+strings.TrimSpace(string(head))) || strings.Contains(string(out), " devel ") {
		t.Errorf("a plain go build reports %q (%v), want the module version and commit %s", out, err, head)
	}
}

// TestRepeatAndLabel: --repeat measures every point N times, interleaved,
// and the document keeps each run (with its histogram) and the label, in
// its file name too.
func TestRepeatAndLabel(t *testing.T) {
	testenv.Device(t)
	dir := t.TempDir()
	r := run(t, 2*time.Minute, "run", "write_lat", "--loopback", "-a", "--sweep-max", "4", "-n", "200",
		"--repeat", "3", "--label", "fw-A", "--save", "--results-dir", dir)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// Interleaved: round 1 of both sizes, then round 2, ...
	order := regexp.MustCompile(`\] write_lat (\d+) bytes \(run (\d) of 3\)`).FindAllStringSubmatch(r.stderr, -1)
	var got []string
	for _, m := range order {
		got = append(got, m[1]+"/"+m[2])
	}
	if want := []string{"2/1", "4/1", "2/2", "4/2", "2/3", "4/3"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "rdma-bench-*-write_lat-fw-A.json"))
	if len(files) != 1 {
		t.Fatalf("saved %v", files)
	}
	b, _ := os.ReadFile(files[0])
	var doc struct {
		Label   string
		Repeat  int
		Results []struct {
			Ops       uint64
			Histogram string
			Runs      []struct {
				Run       int
				Ops       uint64
				Histogram string
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Label != "fw-A" || doc.Repeat != 3 || len(doc.Results) != 2 {
		t.Fatalf("label %q repeat %d, %d results", doc.Label, doc.Repeat, len(doc.Results))
	}
	for _, res := range doc.Results {
		if len(res.Runs) != 3 || res.Ops != 600 || res.Histogram == "" {
			t.Errorf("%d runs, %d ops, histogram %t", len(res.Runs), res.Ops, res.Histogram != "")
		}
		for i, run := range res.Runs {
			if run.Run != i+1 || run.Ops != 200 || run.Histogram == "" {
				t.Errorf("run %d: %+v", i+1, run)
			}
		}
	}
}

// TestOutputFileDevStdout: --output-file /dev/stdout writes through the
// process's standard output (here a file) and never replaces /dev/stdout.
func TestOutputFileDevStdout(t *testing.T) {
	before, err := os.Lstat("/dev/stdout")
	if err != nil || before.Mode()&os.ModeSymlink == 0 {
		t.Skipf("/dev/stdout is not a link here: %v", err)
	}
	out, err := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(binary(t), "run", "tcp_lat", "--loopback", "-n", "100", "-o", "json", "--output-file", "/dev/stdout")
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	after, err := os.Lstat("/dev/stdout")
	if err != nil || after.Mode()&os.ModeSymlink == 0 || !os.SameFile(before, after) {
		t.Fatalf("/dev/stdout was replaced: %v, %v", after, err)
	}
	b, _ := os.ReadFile(out.Name())
	if !strings.Contains(string(b), `"tcp_lat"`) {
		t.Fatalf("standard output holds %q, want the JSON document", b)
	}
}
