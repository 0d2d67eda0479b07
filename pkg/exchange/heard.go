package exchange

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// Heard reports whether the peer has begun a frame: the first bytes of one
// were read, or bytes wait to be read and start as a frame does (with
// Magic, as far as they go). It never blocks, and may be called while
// another goroutine receives. A server uses it to tell a client whose
// hello is arriving from a connection that has said nothing (or something
// that is not rdma-bench's) before the hello is read.
func (c *Conn) Heard() bool {
	if c.heard.Load() {
		return true
	}
	sc, ok := c.nc.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var b [len(Magic)]byte
	n := 0
	// Control, unlike Read, does not wait for a receive under way.
	cerr := rc.Control(func(fd uintptr) {
		for {
			n, _, err = unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
			if !errors.Is(err, unix.EINTR) {
				return
			}
		}
	})
	if cerr != nil || err != nil || n <= 0 {
		return false
	}
	return string(b[:n]) == Magic[:n]
}
