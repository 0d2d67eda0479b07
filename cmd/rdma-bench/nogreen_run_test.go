//go:build cgo

package main

import (
	"encoding/csv"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
)

// runFault is a way a measuring run ends without measuring what it was
// asked to: how it is started, when and how it is broken, and what every
// output format must then say. The runs are the TCP baseline's, which
// need no RDMA device: the harness is the one RDMA runs go through.
type runFault struct {
	name string
	// peer is "server" (a one-shot server on 127.0.0.1), "silent" (a
	// listener that never answers), "absent" (a port nobody listens on),
	// or "" (--loopback, in args).
	peer string
	args []string // after "run tcp_lat" and the target
	// marker is the client's stderr line after which strike breaks the
	// run ("": strike at once).
	marker string
	strike func(t *testing.T, c *runCase)
	code   int
	reason []string // each must be named ("a|b": one of them)
	// measured: a part was measured before the fault: every format must
	// still hold it.
	measured bool
}

// runCase is one run of a fault, in one format.
type runCase struct {
	client, server *proc
	dir            string
	port           string
}

// measuring is the live figure of a timed part under way (not the
// warm-up's, whose p50 is "-").
const measuring = "Mpps p50 "

var measuringRE = regexp.MustCompile(`cumulative: [0-9.]+ Gb/s [0-9.]+ Mpps p50 [0-9]`)

// signalClient sends sig to the client.
func signalClient(sig syscall.Signal) func(t *testing.T, c *runCase) {
	return func(t *testing.T, c *runCase) { c.client.cmd.Process.Signal(sig) }
}

// signalServer sends sig to the server.
func signalServer(sig syscall.Signal) func(t *testing.T, c *runCase) {
	return func(t *testing.T, c *runCase) { c.server.cmd.Process.Signal(sig) }
}

var runFaults = []runFault{
	{name: "peer absent", peer: "absent", args: []string{"-D", "5"}, code: 1, reason: []string{"connection refused"}},
	{name: "peer killed mid-run", peer: "server", args: []string{"-D", "60", "--report-interval", "200ms"}, marker: measuring,
		strike: signalServer(syscall.SIGKILL), code: 1, reason: []string{"closed by peer"}, measured: true},
	{name: "server interrupted mid-run", peer: "server", args: []string{"-D", "60", "--report-interval", "200ms"}, marker: measuring,
		strike: signalServer(syscall.SIGINT), code: 1, reason: []string{"closed by peer"}, measured: true},
	{name: "peer stopped mid-run", peer: "server", args: []string{"-D", "60", "--report-interval", "200ms", "--idle-timeout", "2s"}, marker: measuring,
		strike: signalServer(syscall.SIGSTOP), code: 1, reason: []string{"stopped answering|went silent|stopped reading|no sign of life"}, measured: true},
	{name: "interrupted while connecting", peer: "silent", args: []string{"-D", "5"}, strike: signalClient(syscall.SIGINT), code: 1,
		reason: []string{"interrupted: interrupt received"}},
	{name: "interrupted in the warm-up", args: []string{"--loopback", "--warmup", "1000000", "-n", "1000", "--report-interval", "200ms"},
		marker: "Mpps p50 - us", strike: signalClient(syscall.SIGINT), code: 1, reason: []string{"interrupted: interrupt received"}},
	{name: "interrupted mid-run", args: []string{"--loopback", "-D", "60", "--report-interval", "200ms"}, marker: measuring,
		strike: signalClient(syscall.SIGINT), code: 1, reason: []string{"interrupted: interrupt received"}, measured: true},
	{name: "hangup mid-run", args: []string{"--loopback", "-D", "60", "--report-interval", "200ms"}, marker: measuring,
		strike: signalClient(syscall.SIGHUP), code: 1, reason: []string{"interrupted: hangup received"}, measured: true},
	{name: "terminated between sweep points", args: []string{"--loopback", "-a", "--sweep-max", "64", "-D", "0.5"}, marker: "[1/6]",
		strike: signalClient(syscall.SIGTERM), code: 1, reason: []string{"interrupted: terminated received"}, measured: true},
	{name: "interrupted between repeats", args: []string{"--loopback", "-D", "0.5", "--repeat", "3"}, marker: "[1/3]",
		strike: signalClient(syscall.SIGINT), code: 1, reason: []string{"interrupted: interrupt received"}, measured: true},
}

// TestNoGreenRuns: a run that a dead, stopped or silent peer or a signal
// cut short exits non-zero naming why, in every output format, and every
// format that has room holds what was measured before.
func TestNoGreenRuns(t *testing.T) {
	if os.Getenv("RDMA_BENCH_IN_VM") != "" {
		t.Skip("TCP runs on the host's loopback: make unit runs them; under emulation their timing means nothing")
	}
	for _, f := range runFaults {
		t.Run(f.name, func(t *testing.T) {
			for _, format := range []string{"table", "json", "csv", "hgrm", "perftest", "ndjson"} {
				c := &runCase{dir: t.TempDir()}
				args := []string{"run", "tcp_lat"}
				switch f.peer {
				case "server":
					c.port = testenv.FreePort(t)
					c.server = start(t, "server", "-p", c.port, "--idle-timeout", "2s")
					c.server.await(t, "listening on", 10*time.Second)
				case "silent":
					c.port = silentListener(t)
				case "absent":
					c.port = testenv.FreePort(t)
				}
				if f.peer != "" {
					args = append(args, "127.0.0.1", "-p", c.port)
				}
				c.client = start(t, append(append(args, f.args...), "-o", format)...)
				switch {
				case f.peer == "silent":
					time.Sleep(time.Second) // the client has sent its hello and waits
				case f.marker == measuring:
					awaitRE(t, c.client, measuringRE, time.Minute)
				case f.marker != "":
					c.client.await(t, f.marker, time.Minute)
				}
				if f.strike != nil {
					f.strike(t, c)
				}
				r := waitView(c.client, noGreenViewLimit)
				v := view{name: "run -o " + format, codes: []int{f.code}, reason: f.reason}
				if f.measured {
					v.kept = keptIn(format)
				}
				judge(t, "run: "+f.name, v, r)
			}
		})
	}
}

// TestNoGreenRunOutput: a run whose output cannot be written (a full
// disk) exits non-zero naming it in every format, the measurement saved
// by --save first.
func TestNoGreenRunOutput(t *testing.T) {
	if os.Getenv("RDMA_BENCH_IN_VM") != "" {
		t.Skip("TCP runs on the host's loopback: make unit runs them")
	}
	for _, format := range []string{"table", "json", "csv", "hgrm", "perftest", "ndjson"} {
		dir := t.TempDir()
		v := view{name: "run -o " + format, codes: []int{1}, reason: []string{"no space left on device", "saved "},
			args: []string{"run", "tcp_lat", "--loopback", "-n", "2000", "-o", format, "--output-file", "/dev/full", "--save", "--results-dir", dir},
			kept: func(viewRun) bool { return savedOps(dir) > 0 }}
		judge(t, "run: output unwritable", v, runView(t, v))
	}
}

// TestNoGreenServerView: a one-shot server whose client was killed mid-run
// exits non-zero naming it.
func TestNoGreenServerView(t *testing.T) {
	if os.Getenv("RDMA_BENCH_IN_VM") != "" {
		t.Skip("TCP runs on the host's loopback: make unit runs them")
	}
	port := testenv.FreePort(t)
	srv := start(t, "server", "-p", port)
	srv.await(t, "listening on", 10*time.Second)
	cl := start(t, "run", "tcp_lat", "127.0.0.1", "-p", port, "-D", "60", "--report-interval", "200ms")
	awaitRE(t, cl, measuringRE, time.Minute)
	cl.cmd.Process.Signal(syscall.SIGKILL)
	judge(t, "server: client killed mid-run", view{name: "server", codes: []int{1}, reason: []string{"closed by peer"}}, waitView(srv, noGreenViewLimit))
}

// awaitRE waits up to limit for a stderr line of p matching re.
func awaitRE(t *testing.T, p *proc, re *regexp.Regexp, limit time.Duration) {
	t.Helper()
	deadline := time.After(limit)
	for {
		select {
		case l := <-p.lines:
			if re.MatchString(l) {
				return
			}
		case <-p.done:
			t.Fatalf("exited (%d) before %v:\n%s", p.code, re, p.stderr.String())
		case <-deadline:
			t.Fatalf("no %v within %v:\n%s", re, limit, p.stderr.String())
		}
	}
}

// waitView waits up to limit for p to end and says how it did.
func waitView(p *proc, limit time.Duration) viewRun {
	select {
	case <-p.done:
	case <-time.After(limit):
		return viewRun{hung: true, stdout: p.stdout.String(), stderr: p.stderr.String()}
	}
	r := viewRun{code: p.code, stdout: p.stdout.String(), stderr: p.stderr.String()}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.signaled = true
	}
	return r
}

// silentListener accepts connections and never answers: a server stuck
// before its hello.
func silentListener(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// keptIn says whether a format's output holds a point measured in part:
// its figures and, where the format has room, its partial status.
func keptIn(format string) func(viewRun) bool {
	row := regexp.MustCompile(`(?m)^\|\s+\d+ \|\s+[1-9]\d* \|`)
	return func(r viewRun) bool {
		switch format {
		case "table":
			return row.MatchString(r.stdout) && strings.Contains(r.stdout, "partial: ")
		case "json":
			return docOps(r.stdout) > 0
		case "ndjson":
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			var last struct{ Document json.RawMessage }
			return json.Unmarshal([]byte(lines[len(lines)-1]), &last) == nil && docOps(string(last.Document)) > 0
		case "csv":
			return csvPartialOps(r.stdout) > 0
		case "hgrm":
			// A histogram per point that has samples: a point cut short
			// before its first sample has none, and no "# partial" line.
			return strings.Contains(r.stdout, "Percentile")
		case "perftest":
			return regexp.MustCompile(`(?m)^\s*\d+\s+[1-9]\d*\s+[0-9.]+`).MatchString(r.stdout)
		}
		return false
	}
}

// docOps is the operations of a document's results when one was cut
// short (partial), else 0.
func docOps(s string) uint64 {
	var d struct {
		Results []struct {
			Status string
			Ops    uint64
		}
	}
	if json.Unmarshal([]byte(s), &d) != nil {
		return 0
	}
	var n uint64
	partial := false
	for _, r := range d.Results {
		n += r.Ops
		partial = partial || r.Status == "partial"
	}
	if !partial {
		return 0
	}
	return n
}

// csvPartialOps is the operations of the CSV's rows when one is partial,
// else 0.
func csvPartialOps(s string) uint64 {
	rows, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil || len(rows) < 2 {
		return 0
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var n uint64
	partial := false
	for _, r := range rows[1:] {
		partial = partial || r[col["status"]] == "partial"
		v, _ := strconv.ParseUint(r[col["ops"]], 10, 64)
		n += v
	}
	if !partial {
		return 0
	}
	return n
}

// savedOps is the operations of the documents --save wrote into dir.
func savedOps(dir string) uint64 {
	saved, _ := filepath.Glob(filepath.Join(dir, "rdma-bench-*.json"))
	var n uint64
	for _, p := range saved {
		b, _ := os.ReadFile(p)
		var d struct{ Results []struct{ Ops uint64 } }
		if json.Unmarshal(b, &d) == nil {
			for _, r := range d.Results {
				n += r.Ops
			}
		}
	}
	return n
}
