//go:build cgo

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"
	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

// start starts rdma-bench with args (stderr read line
// by line); t's cleanup kills it.
func start(t *testing.T, args ...string) *proc {
	t.Helper()
	return startProc(t, nil, binary(t), args...)
}

// margin is what the emulator may add to a bounded wait.
const margin = 6 * time.Second

// TestStoppedPeer: a peer that stops answering without dying (SIGSTOP: a
// frozen host, a partition) ends the survivor's run within the idle
// timeout and a margin, with a message naming the wait, whichever side
// stops, in iteration and duration mode, latency and bandwidth, RDMA and
// TCP.
func TestStoppedPeer(t *testing.T) {
	const idle = 2 * time.Second
	for _, w := range []string{"tcp_lat", "tcp_bw", "write_lat", "write_bw"} {
		for _, mode := range [][]string{{"-n", "1000000"}, {"-D", "60"}} {
			for _, stopped := range []string{"server", "client"} {
				t.Run(fmt.Sprintf("%s/%s/%s-stopped", w, mode[0], stopped), func(t *testing.T) {
					if !strings.HasPrefix(w, "tcp_") {
						testenv.Device(t)
					}
					port := testenv.FreePort(t)
					srv := start(t, "server", "-p", port, "--idle-timeout", idle.String())
					srv.await(t, "listening on", 10*time.Second)
					args := append([]string{"run", w, "127.0.0.1", "-p", port, "-s", "4K", "--idle-timeout", idle.String(),
						"--report-interval", "200ms"}, mode...)
					cl := start(t, args...)
					cl.await(t, "cumulative:", time.Minute)
					victim, survivor := srv, cl
					if stopped == "client" {
						victim, survivor = cl, srv
					}
					victim.cmd.Process.Signal(syscall.SIGSTOP)
					took := survivor.wait(t, idle+margin+20*time.Second)
					msg := survivor.stderr.String()
					t.Logf("the %s ended %v after its peer stopped: %s", map[bool]string{true: "client", false: "server"}[stopped == "server"], took, lastLine(msg))
					if took > idle+margin {
						t.Errorf("took %v, want at most the idle timeout %v and a margin %v", took, idle, margin)
					}
					if survivor.code == 0 || !mentionsWait(msg) {
						t.Errorf("exit %d; want a failure naming the wait:\n%s", survivor.code, msg)
					}
				})
			}
		}
	}
}

func mentionsWait(s string) bool {
	for _, w := range []string{"stopped answering", "went silent", "stopped reading", "no sign of life"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func lastLine(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return l[len(l)-1]
}

// TestSignalEndsAnyWait: a survivor stuck waiting for a stopped peer, with
// a long idle timeout, ends within a second or two of Ctrl-C or SIGTERM.
func TestSignalEndsAnyWait(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		for _, waiter := range []string{"server", "client"} {
			t.Run(fmt.Sprintf("%v/%s", sig, waiter), func(t *testing.T) {
				port := testenv.FreePort(t)
				srv := start(t, "server", "-p", port, "--idle-timeout", "60s")
				srv.await(t, "listening on", 10*time.Second)
				cl := start(t, "run", "tcp_bw", "127.0.0.1", "-p", port, "-D", "60", "--idle-timeout", "60s", "--report-interval", "200ms")
				cl.await(t, "cumulative:", time.Minute)
				stuck, peer := srv, cl
				if waiter == "client" {
					stuck, peer = cl, srv
				}
				peer.cmd.Process.Signal(syscall.SIGSTOP)
				time.Sleep(time.Second) // the survivor now waits on its stopped peer
				stuck.cmd.Process.Signal(sig)
				if took := stuck.wait(t, 15*time.Second); took > 3*time.Second {
					t.Errorf("the %s took %v to end after %v", waiter, took, sig)
				}
				if stuck.code == 0 && waiter == "client" {
					t.Errorf("the client ended with exit 0 after %v", sig)
				}
			})
		}
	}
}

// TestBusyServerKeepsItsRun: a connection that arrives during a one-shot
// server's run (another client, or junk) is turned away and cannot end the
// run; the server ends after the run it served.
func TestBusyServerKeepsItsRun(t *testing.T) {
	for _, w := range []string{"tcp_lat", "write_lat"} {
		t.Run(w, func(t *testing.T) {
			if w == "write_lat" {
				testenv.Device(t)
			}
			port := testenv.FreePort(t)
			srv := start(t, "server", "-p", port)
			srv.await(t, "listening on", 10*time.Second)
			// The first run lasts 10 s so that both intruders arrive during it
			// even under TCG, where starting the second client takes seconds
			// (CI: a -D 3 run had ended before the junk connection came).
			cl := start(t, "run", w, "127.0.0.1", "-p", port, "-D", "10", "--report-interval", "200ms")
			cl.await(t, "cumulative:", time.Minute)
			began := time.Now()
			junk, err := net.Dial("tcp", "127.0.0.1:"+port)
			if err != nil {
				t.Fatal(err)
			}
			junk.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
			junk.Close()
			second := run(t, 30*time.Second, "run", "tcp_bw", "127.0.0.1", "-p", port, "-n", "10")
			if second.code == 0 || !strings.Contains(second.stderr, "busy: the server is serving") {
				t.Errorf("a second client: exit %d, %q; want busy", second.code, second.stderr)
			}
			select {
			case <-cl.done:
				t.Fatalf("the first run ended %v after its first report, before the intruders were turned away; the test needs a longer -D", time.Since(began))
			default:
			}
			cl.wait(t, time.Minute)
			if cl.code != 0 {
				t.Fatalf("the first client's run: exit %d: %s", cl.code, cl.stderr.String())
			}
			srv.wait(t, 20*time.Second)
			if srv.code != 0 {
				t.Errorf("the one-shot server: exit %d: %s", srv.code, srv.stderr.String())
			}
		})
	}
}

// TestCraftedHelloRefused: a hello asking for more memory than the server
// allows (write_bw, 256 MiB, 8 queue pairs) is refused before anything is
// allocated, and the server goes on serving.
func TestCraftedHelloRefused(t *testing.T) {
	port := testenv.FreePort(t)
	srv := start(t, "server", "-p", port, "--persistent", "--max-memory", "256M")
	srv.await(t, "listening on", 10*time.Second)
	s := point.NewSpec("write_bw")
	s.Size, s.QPs = 256<<20, 8
	r, _, err := workloads.Resolve(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := 0
	fmt.Sscan(port, &p)
	conn, err := exchange.Dial(context.Background(), "127.0.0.1", p, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = conn.Handshake(exchange.RoleClient, r.Encode(), false)
	if err == nil || !strings.Contains(err.Error(), "the run needs 409") || !strings.Contains(err.Error(), "above 256.0 MiB (--max-memory)") {
		t.Fatalf("handshake: %v; want a refusal naming the memory", err)
	}
	if r := run(t, time.Minute, "run", "tcp_lat", "127.0.0.1", "-p", port, "-n", "100"); r.code != 0 {
		t.Fatalf("the next client: exit %d: %s", r.code, r.stderr)
	}
}

// TestSilentConnectionsDoNotStarve: connections that say nothing cannot
// keep a real client out.
func TestSilentConnectionsDoNotStarve(t *testing.T) {
	port := testenv.FreePort(t)
	srv := start(t, "server", "-p", port, "--persistent")
	srv.await(t, "listening on", 10*time.Second)
	var conns []net.Conn
	for range 200 {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	start := time.Now()
	if r := run(t, time.Minute, "run", "tcp_lat", "127.0.0.1", "-p", port, "-n", "100"); r.code != 0 {
		t.Fatalf("a client after 200 silent connections: exit %d: %s", r.code, r.stderr)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the client took %v behind 200 silent connections", took)
	}
}

// TestReportIntervalMinimum: live figures at the shortest period never
// stall the run: it ends on time, with its operations counted.
func TestReportIntervalMinimum(t *testing.T) {
	for _, w := range []string{"tcp_lat", "tcp_bw", "write_lat", "write_bw"} {
		t.Run(w, func(t *testing.T) {
			if !strings.HasPrefix(w, "tcp_") {
				testenv.Device(t)
			}
			start := time.Now()
			r := run(t, time.Minute, "run", w, "--loopback", "-D", "1", "-s", "4K", "--report-interval", workloads.MinReportInterval.String(), "-o", "csv")
			took := time.Since(start)
			if r.code != 0 || strings.Count(r.stderr, "cumulative:") < 10 {
				t.Fatalf("exit %d, %d live figures:\n%s", r.code, strings.Count(r.stderr, "cumulative:"), r.stderr)
			}
			if took > 20*time.Second {
				t.Errorf("a 1 s run with live figures every %v took %v", workloads.MinReportInterval, took)
			}
			t.Logf("%d live figures; %v in all", strings.Count(r.stderr, "cumulative:"), took)
		})
	}
}

// TestLostCompletion: a run whose completion never comes while its peer
// lives ends within the idle timeout, naming a lost completion and the
// provider, never as a stopped peer nor a hang. The client is the
// slowdown build (RDMA_BENCH_SLOW_BIN, -tags rdmabench_slowdown) told to
// discard its 3000th completion, as a faulty provider does; send_lat
// needs every receive's completion on both sides.
func TestLostCompletion(t *testing.T) {
	testenv.Device(t)
	slow := os.Getenv("RDMA_BENCH_SLOW_BIN")
	if slow == "" {
		if testenv.Required() {
			t.Fatal("RDMA_BENCH_SLOW_BIN is unset: scripts/integration.sh builds it (-tags rdmabench_slowdown)")
		}
		t.Skip("RDMA_BENCH_SLOW_BIN is unset: set it to a build with -tags rdmabench_slowdown (scripts/integration.sh does)")
	}
	const idle = 2 * time.Second
	port := testenv.FreePort(t)
	srv := start(t, "server", "-p", port, "--idle-timeout", idle.String())
	srv.await(t, "listening on", 10*time.Second)
	cl := startProc(t, append(os.Environ(), "RDMA_BENCH_DROP_COMPLETION=3000"), slow,
		"run", "send_lat", "127.0.0.1", "-p", port, "-D", "60", "--idle-timeout", idle.String())
	took := cl.wait(t, time.Minute)
	msg := cl.stderr.String()
	t.Logf("the client ended after %v: %s", took, lastLine(msg))
	if took > 30*time.Second {
		t.Errorf("took %v of its 60 s; want the idle timeout %v after the loss", took, idle)
	}
	for _, want := range []string{"a completion was lost (the provider or the device dropped it)", "while the peer was alive", "provider "} {
		if cl.code == 0 || !strings.Contains(msg, want) {
			t.Errorf("exit %d; want a failure saying %q:\n%s", cl.code, want, msg)
		}
	}
	if strings.Contains(msg, "stopped answering") {
		t.Errorf("a lost completion read as a stopped peer:\n%s", msg)
	}
}
