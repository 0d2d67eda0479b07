package exchange

import (
	"net"
	"testing"
	"time"
)

// accepted returns a connected pair: the raw client side and the server's
// Conn.
func accepted(t *testing.T) (net.Conn, *Conn) {
	t.Helper()
	ln, err := Listen("127.0.0.1", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	c, err := ln.Accept(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return nc, c
}

// heardWithin polls c.Heard until it is true or d passes.
func heardWithin(c *Conn, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if c.Heard() {
			return true
		}
	}
	return false
}

// TestHeard: a connection is heard from once the start of a frame has
// arrived (unread, or read), not while it is silent or has sent bytes that
// are not rdma-bench's.
func TestHeard(t *testing.T) {
	for _, tc := range []struct {
		send string
		want bool
	}{
		{"", false},
		{"GET / HTTP/1.0\r\n\r\n", false},
		{"RD", true}, // the magic, as far as it goes
		{Magic + "\x00", true},
	} {
		nc, c := accepted(t)
		if tc.send != "" {
			if _, err := nc.Write([]byte(tc.send)); err != nil {
				t.Fatal(err)
			}
		}
		wait := 2 * time.Second
		if !tc.want {
			wait = 200 * time.Millisecond
		}
		if got := heardWithin(c, wait); got != tc.want {
			t.Errorf("after %q: Heard() = %v, want %v", tc.send, got, tc.want)
		}
	}
}

// TestHeardWhileReading: a hello being read (its bytes taken from the
// socket, the rest awaited) is heard from, and Heard does not wait for
// the receive under way.
func TestHeardWhileReading(t *testing.T) {
	nc, c := accepted(t)
	done := make(chan error, 1)
	go func() {
		_, err := c.AwaitHello(5 * time.Second)
		done <- err
	}()
	if _, err := nc.Write([]byte(Magic)); err != nil {
		t.Fatal(err)
	}
	if !heardWithin(c, 2*time.Second) {
		t.Error("a hello under way is not heard from")
	}
	nc.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("AwaitHello did not end after its peer closed")
	}
	if !c.Heard() {
		t.Error("Heard() turned false after the frame's first bytes were read")
	}
}
