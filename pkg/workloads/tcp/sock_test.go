package tcp

import (
	"context"
	"net"
	"os"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
)

// sockPair returns two connected data sockets over loopback.
func sockPair(t *testing.T, busy bool) (a, b *sock) {
	t.Helper()
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	nc, err := net.DialTCP("tcp", nil, ln.Addr().(*net.TCPAddr))
	if err != nil {
		t.Fatal(err)
	}
	pc, err := ln.AcceptTCP()
	if err != nil {
		nc.Close()
		t.Fatal(err)
	}
	if a, err = newSock(nc, busy, time.Second); err != nil {
		pc.Close()
		t.Fatal(err)
	}
	if b, err = newSock(pc, busy, time.Second); err != nil {
		a.close()
		t.Fatal(err)
	}
	t.Cleanup(func() { a.close(); b.close() })
	return a, b
}

func TestHotPathDoesNotAllocate(t *testing.T) {
	for _, busy := range []bool{false, true} {
		a, b := sockPair(t, busy)
		out, in := make([]byte, 64), make([]byte, 64)
		allocs := testing.AllocsPerRun(200, func() {
			if err := a.sendAll(out); err != nil {
				t.Fatal(err)
			}
			if err := b.recvFull(in); err != nil {
				t.Fatal(err)
			}
			_ = now()
		})
		if allocs != 0 {
			t.Errorf("busy=%v: %v allocations per round", busy, allocs)
		}
	}
}

func TestAbortWakesBlockedRecv(t *testing.T) {
	a, _ := sockPair(t, false)
	time.AfterFunc(50*time.Millisecond, a.abort)
	start := time.Now()
	_, err := a.recvSome(make([]byte, 8))
	if err != errStopped || time.Since(start) > 500*time.Millisecond {
		t.Errorf("recv after abort: %v after %v", err, time.Since(start))
	}
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count descriptors: %v", err)
	}
	return len(ents)
}

func TestNoFDLeak(t *testing.T) {
	quick := func(wl string) Config {
		c := testConfig(wl)
		c.Iterations = 50
		return c
	}
	if _, err := Loopback(context.Background(), quick(Lat)); err != nil { // warm the runtime's own descriptors
		t.Fatal(err)
	}
	before := openFDs(t)
	for _, wl := range []string{Lat, Bw} {
		for _, busy := range []bool{false, true} {
			c := quick(wl)
			c.BusyPoll = busy
			if _, err := Loopback(context.Background(), c); err != nil {
				t.Fatal(err)
			}
		}
		c := quick(wl)
		c.Iterations, c.failAfter, c.IdleTimeout = 100000, 10, 300*time.Millisecond
		if _, err := Loopback(context.Background(), c); err == nil {
			t.Fatal("a failing server went unnoticed")
		}
		c.failAfter, c.silentAfter = 0, 10
		if _, err := Loopback(context.Background(), c); err == nil {
			t.Fatal("a silent server went unnoticed")
		}
		c = quick(wl)
		c.Iterations, c.Duration = 0, time.Minute
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err := Loopback(ctx, c)
		cancel()
		if err == nil {
			t.Fatal("cancel went unnoticed")
		}
	}
	// A refused client, on both sides.
	ln, err := exchange.Listen("127.0.0.1", 0)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() {
		served <- ServeListener(context.Background(), Defaults(), map[string]string{"size": "64"}, ln, false)
	}()
	if _, err := RunClient(context.Background(), quick(Lat), "127.0.0.1", ln.Port()); err == nil {
		t.Fatal("mismatch accepted")
	}
	<-served
	ln.Close()
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors open before, %d after", before, after)
	}
}
