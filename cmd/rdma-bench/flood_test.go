//go:build cgo

package main

import (
	"context"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/testenv"

	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

// flooder opens connections to a server as fast as it can from workers
// goroutines, each keeping its last held connections open: silent ones
// (they connect and say nothing) and, with junk, connections that send a
// line of HTTP instead of a hello.
type flooder struct {
	addr  string
	from  net.Addr // the local address to dial from; nil: 127.0.0.1
	junk  bool
	dials atomic.Int64
}

// Flood connections are made from ports below the ephemeral range
// (testenv.FloodBase up to testenv.PortBase), each worker cycling through
// its own share: tens of thousands of connections a second from ephemeral
// ports would take the ports other tests pick as free and bind a moment
// later.
const (
	floodBase  = testenv.FloodBase
	floodPorts = testenv.PortBase - testenv.FloodBase
)

// run floods until ctx ends, then closes what it holds.
func (f *flooder) run(ctx context.Context, workers, held int) {
	var wg sync.WaitGroup
	ip := net.IPv4(127, 0, 0, 1)
	if a, ok := f.from.(*net.TCPAddr); ok {
		ip = a.IP
	}
	share := floodPorts / workers
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var conns []net.Conn
			defer func() {
				for _, c := range conns {
					hangUp(c)
				}
			}()
			for i := 0; ctx.Err() == nil; i++ {
				from := &net.TCPAddr{IP: ip, Port: floodBase + w*share + i%share}
				d := net.Dialer{LocalAddr: from, Timeout: time.Second}
				c, err := d.DialContext(ctx, "tcp", f.addr)
				if err != nil {
					time.Sleep(time.Millisecond)
					continue
				}
				f.dials.Add(1)
				if f.junk {
					c.SetWriteDeadline(time.Now().Add(time.Second))
					c.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
				}
				conns = append(conns, c)
				if len(conns) > held {
					hangUp(conns[0])
					conns = conns[1:]
				}
			}
		}()
	}
	wg.Wait()
}

// hangUp closes c with a reset: tens of thousands of connections closed
// normally would leave the ephemeral ports in TIME_WAIT.
func hangUp(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}

// floodOutcome is what real clients met under a flood.
type floodOutcome struct {
	failed   []string // the errors of the real clients that failed
	lines    int      // the server's log lines during the flood
	seconds  float64  // how long the flood lasted
	dials    int64    // the flood's connections
	realRuns int
}

// underFlood runs `rdma-bench server --persistent`, floods it from from
// (nil: the clients' own address), and meanwhile runs real clients (a
// short tcp_lat each, through the client's code path) one after another.
func underFlood(t *testing.T, from net.Addr, junk bool, clients int) floodOutcome {
	if os.Getenv("RDMA_BENCH_IN_VM") == "1" {
		t.Skip("TCP only, so it runs on the host in make unit; under the emulator each flood takes a minute")
	}
	t.Helper()
	port := testenv.FreePort(t)
	_, stderr := startServer(t, port, "--persistent")
	before := strings.Count(stderr.String(), "\n")
	p, _ := strconv.Atoi(port)
	f := &flooder{addr: net.JoinHostPort("127.0.0.1", port), from: from, junk: junk}
	ctx, cancel := context.WithCancel(context.Background())
	floodDone := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(floodDone)
		f.run(ctx, 6, 64)
	}()
	time.Sleep(time.Second) // the flood under way
	out := floodOutcome{realRuns: clients}
	asked := point.NewSpec("tcp_lat")
	asked.Iterations = 100
	spec, _, err := workloads.Resolve(asked, nil)
	if err != nil {
		t.Fatal(err)
	}
	local := workloads.DefaultLocal()
	for i := range clients {
		cctx, ccancel := context.WithTimeout(context.Background(), 15*time.Second)
		_, err := workloads.RunClient(cctx, spec, local, "127.0.0.1", p, false)
		ccancel()
		if err != nil {
			out.failed = append(out.failed, strconv.Itoa(i)+": "+err.Error())
		}
	}
	cancel()
	<-floodDone
	out.seconds = time.Since(start).Seconds()
	out.lines = strings.Count(stderr.String(), "\n") - before
	out.dials = f.dials.Load()
	t.Logf("%d of %d real clients failed under a flood of %d connections in %.1f s (%.0f/s); the server logged %d lines (%.0f/s)",
		len(out.failed), clients, out.dials, out.seconds, float64(out.dials)/out.seconds, out.lines, float64(out.lines)/out.seconds)
	for _, e := range out.failed {
		t.Logf("  %s", e)
	}
	return out
}

// TestFloodFromElsewhere: silent connections flooding from another
// address (127.0.0.2) never cost a real client its run.
func TestFloodFromElsewhere(t *testing.T) {
	o := underFlood(t, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, false, 12)
	if len(o.failed) != 0 {
		t.Errorf("%d of %d real clients failed under a flood from another address", len(o.failed), o.realRuns)
	}
}

// TestFloodFromSameAddress: silent connections flooding from the real
// clients' own address cost at most one real client in twelve its run (a
// client's hello, once it has begun to arrive, is never evicted; see
// pkg/workloads/server_pending.go).
func TestFloodFromSameAddress(t *testing.T) {
	o := underFlood(t, nil, false, 12)
	if len(o.failed) > 1 {
		t.Errorf("%d of %d real clients failed under a flood from their own address", len(o.failed), o.realRuns)
	}
}

// TestJunkFloodFromSameAddress: so do connections that send junk (a line
// of HTTP) instead of a hello.
func TestJunkFloodFromSameAddress(t *testing.T) {
	o := underFlood(t, nil, true, 12)
	if len(o.failed) > 1 {
		t.Errorf("%d of %d real clients failed under a junk flood from their own address", len(o.failed), o.realRuns)
	}
}

// TestFloodLogBounded: under a flood the server logs a bounded number of
// lines: each real client's run, the first few refusals of each kind in
// each interval, and one summary line per interval.
func TestFloodLogBounded(t *testing.T) {
	o := underFlood(t, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, true, 12)
	// 12 served, and per 10 s interval per kind (at most 3 kinds) 5 lines
	// and a summary.
	limit := o.realRuns + 3*6*(int(o.seconds/10)+2)
	if o.lines > limit {
		t.Errorf("the server logged %d lines in %.1f s under a flood: want at most %d", o.lines, o.seconds, limit)
	}
}
