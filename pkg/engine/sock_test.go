package engine_test

import (
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rdma-bench/rdma-bench/pkg/engine"
)

// tcpPair returns two connected blocking TCP descriptors over loopback,
// with TCP_NODELAY and no socket timeouts (the loops' watchdogs bound
// their waits). Those still open (not set to -1) are closed at cleanup.
func tcpPair(t *testing.T) *[2]int {
	t.Helper()
	fds := &[2]int{-1, -1}
	t.Cleanup(func() {
		for _, fd := range fds {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	})
	ln, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ln)
	lo := &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}
	if err := unix.Bind(ln, lo); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(ln, 1); err != nil {
		t.Fatal(err)
	}
	sa, err := unix.Getsockname(ln)
	if err != nil {
		t.Fatal(err)
	}
	if fds[0], err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0); err != nil {
		t.Fatal(err)
	}
	if err := unix.Connect(fds[0], sa); err != nil {
		t.Fatal(err)
	}
	if fds[1], _, err = unix.Accept4(ln, unix.SOCK_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	}
	return fds
}

func newLoop(t *testing.T, spec engine.SockSpec) *engine.SockLoop {
	t.Helper()
	l, err := engine.NewSockLoop(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

// loopPair returns a pinging and a ponging loop over loopback, and the
// pinging side's descriptor.
func loopPair(t *testing.T, busy bool, size, samples int, idle time.Duration) (ping, pong *engine.SockLoop, fd int) {
	fds := tcpPair(t)
	ping = newLoop(t, engine.SockSpec{FD: fds[0], Size: size, Busy: busy, IdleTimeout: idle, SampleCap: samples})
	pong = newLoop(t, engine.SockSpec{FD: fds[1], Size: size, Busy: busy, IdleTimeout: idle})
	return ping, pong, fds[0]
}

func TestSockPingPong(t *testing.T) {
	for _, busy := range []bool{false, true} {
		ping, pong, fd := loopPair(t, busy, 100, 64, time.Second)
		copy(ping.Message(), "hello")
		echoed := make(chan error, 1)
		go func() {
			st, err := pong.Pong(engine.Forever)
			if err == nil && st != engine.StatusEOF {
				err = errors.New("pong did not see the end of the stream")
			}
			echoed <- err
		}()
		if st, err := ping.Ping(10, 0, false); st != engine.StatusDone || err != nil {
			t.Fatalf("busy=%v: warm-up: %v %v", busy, st, err)
		}
		ping.ResetCounts()
		// 200 iterations in batches of 64: three full, then the rest.
		var samples []int64
		for left := uint64(200); ; {
			st, err := ping.Ping(left, 0, true)
			if err != nil {
				t.Fatalf("busy=%v: %v", busy, err)
			}
			ts := ping.Timestamps()
			for i := 1; i < len(ts); i++ {
				samples = append(samples, ts[i]-ts[i-1])
			}
			left -= uint64(len(ts) - 1)
			ping.ResetSamples()
			if st == engine.StatusDone {
				break
			}
			if st != engine.StatusFull || len(ts) != 65 {
				t.Fatalf("busy=%v: status %v with %d timestamps", busy, st, len(ts))
			}
		}
		if len(samples) != 200 || ping.Done() != 200 {
			t.Fatalf("busy=%v: %d samples, %d done", busy, len(samples), ping.Done())
		}
		for i, d := range samples {
			if d <= 0 {
				t.Fatalf("busy=%v: sample %d = %d ns", busy, i, d)
			}
		}
		// Duration mode ends at the deadline.
		if st, err := ping.Ping(engine.Forever, engine.Now()+int64(20*time.Millisecond), true); st != engine.StatusDeadline && st != engine.StatusFull || err != nil {
			t.Fatalf("busy=%v: duration: %v %v", busy, st, err)
		}
		_ = unix.Shutdown(fd, unix.SHUT_WR)
		if err := <-echoed; err != nil {
			t.Fatalf("busy=%v: %v", busy, err)
		}
		if pong.Done() != 10+ping.Done() {
			t.Errorf("busy=%v: %d echoes for 10 + %d pings", busy, pong.Done(), ping.Done())
		}
	}
}

func TestSockStream(t *testing.T) {
	for _, busy := range []bool{false, true} {
		tx, rx, fd := loopPair(t, busy, 4096, 0, time.Second)
		got := make(chan error, 1)
		go func() {
			st, err := rx.RecvStream(engine.Forever)
			if err == nil && st != engine.StatusEOF {
				err = errors.New("receiver did not see the end of the stream")
			}
			got <- err
		}()
		if st, err := tx.SendStream(500, 0); st != engine.StatusDone || err != nil {
			t.Fatalf("busy=%v: %v %v", busy, st, err)
		}
		_ = unix.Shutdown(fd, unix.SHUT_WR)
		if err := <-got; err != nil {
			t.Fatal(err)
		}
		first, last := rx.Arrivals()
		if rx.Bytes() != 500*4096 || tx.Done() != 500 || first <= 0 || last < first {
			t.Errorf("busy=%v: %d bytes, %d sent, arrivals %d..%d", busy, rx.Bytes(), tx.Done(), first, last)
		}
	}
}

// TestSockIdle: a peer that does not answer, or does not read, ends a
// call with StatusIdle after the idle timeout: by the clock when spinning,
// by the watchdog when blocked.
func TestSockIdle(t *testing.T) {
	for _, busy := range []bool{false, true} {
		for _, op := range []string{"recv", "send"} {
			ping, _, _ := loopPair(t, busy, 1<<20, 0, 100*time.Millisecond)
			start := time.Now()
			var st engine.Status
			var err error
			if op == "recv" { // the peer never echoes
				st, err = ping.Ping(1, 0, true)
			} else { // the peer never reads: the socket buffers fill
				st, err = ping.SendStream(engine.Forever, 0)
			}
			var se *engine.SockError
			if st != engine.StatusIdle || !errors.As(err, &se) || se.Op != op || !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("busy=%v %s: %v %v", busy, op, st, err)
			}
			if took := time.Since(start); took < 90*time.Millisecond || took > 2*time.Second {
				t.Errorf("busy=%v %s: gave up after %v", busy, op, took)
			}
		}
	}
}

// TestSockWatchdogSparesIdleCallers: the watchdog times out a call that
// waits, not a loop that is merely not called for longer than the timeout.
func TestSockWatchdogSparesIdleCallers(t *testing.T) {
	fds := tcpPair(t)
	ping := newLoop(t, engine.SockSpec{FD: fds[0], Size: 8, IdleTimeout: 50 * time.Millisecond})
	pong := newLoop(t, engine.SockSpec{FD: fds[1], Size: 8, IdleTimeout: 10 * time.Second})
	done := make(chan error, 1)
	go func() {
		_, err := pong.Pong(engine.Forever)
		done <- err
	}()
	for i := 0; i < 3; i++ {
		if st, err := ping.Ping(1, 0, false); st != engine.StatusDone || err != nil {
			t.Fatalf("ping %d: %v %v", i, st, err)
		}
		time.Sleep(150 * time.Millisecond) // between calls: no timeout
	}
	_ = unix.Shutdown(fds[0], unix.SHUT_WR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestSockStop(t *testing.T) {
	for _, busy := range []bool{false, true} {
		ping, _, fd := loopPair(t, busy, 8, 0, 10*time.Second)
		time.AfterFunc(50*time.Millisecond, func() {
			ping.Stop()
			if !busy { // a blocked call needs waking
				_ = unix.Shutdown(fd, unix.SHUT_RDWR)
			}
		})
		start := time.Now()
		if st, err := ping.Ping(engine.Forever, 0, false); st != engine.StatusStopped || err != nil {
			t.Errorf("busy=%v: %v %v", busy, st, err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("busy=%v: stopped after %v", busy, took)
		}
	}
}

func TestSockPeerGone(t *testing.T) {
	fds := tcpPair(t)
	l := newLoop(t, engine.SockSpec{FD: fds[0], Size: 8, IdleTimeout: time.Second})
	if _, err := unix.Write(fds[1], []byte("abc")); err != nil {
		t.Fatal(err)
	}
	_ = unix.Shutdown(fds[1], unix.SHUT_WR)
	msg := make([]byte, 8)
	if st, err := l.RecvFull(msg); st != engine.StatusEOF || err != nil || l.Partial() != 3 || string(msg[:3]) != "abc" {
		t.Fatalf("recv: %v %v, partial %d", st, err, l.Partial())
	}
	// A peer that closed with unread data resets the connection.
	_, _ = unix.Write(fds[0], []byte("x"))
	time.Sleep(20 * time.Millisecond)
	_ = unix.Close(fds[1])
	fds[1] = -1
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = l.SendStream(1, 0)
	}
	var se *engine.SockError
	if !errors.As(err, &se) || se.Op != "send" || !(errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)) {
		t.Errorf("send to a closed peer: %v", err)
	}
}
