package tcp

import (
	"encoding/binary"
	"fmt"
	"io"
)

// tcp_bw: the client writes SIZE-byte messages back to back, then shuts
// down its sending side; the server reads (SIZE bytes per call at most)
// until the end of the stream and answers with an 8-byte count of the
// bytes it received. The client's elapsed time runs from its first timed
// send to that answer: like an RDMA completion, which needs the
// responder's acknowledgement, it ends when the last byte has arrived,
// not when it was handed to the kernel's send buffer, and it needs no
// comparison of the two machines' clocks. It exceeds the server's own
// first-to-last-byte time by one message's transfer and one small-message
// one-way latency.

func (c *client) bw() error {
	for i := range c.cfg.Warmup {
		if err := c.s.sendAll(c.buf); err != nil {
			return fmt.Errorf("warm-up message %d: %w", i+1, err)
		}
	}
	if err := c.beginTimed(); err != nil {
		return err
	}
	iters, deadline := uint64(c.cfg.Iterations), c.start+int64(c.cfg.Duration)
	for {
		if err := c.s.sendAll(c.buf); err != nil {
			c.end = now()
			return fmt.Errorf("message %d: sending: %w", c.done+1, err)
		}
		c.done++
		if c.done == iters || (iters == 0 && now() >= deadline) {
			break
		}
	}
	if err := c.s.closeWrite(); err != nil {
		c.end = now()
		return fmt.Errorf("ending the run: %w", err)
	}
	if err := c.s.recvFull(c.ack[:]); err != nil {
		c.end = now()
		if err == io.EOF {
			err = errPeerClosed
		}
		return fmt.Errorf("waiting for the server to receive the last byte: %w", err)
	}
	c.end = now()
	c.received = binary.BigEndian.Uint64(c.ack[:])
	if sent := c.done * uint64(c.cfg.Size); c.received != sent {
		return fmt.Errorf("the server received %d bytes of the %d sent", c.received, sent)
	}
	return c.endTimed()
}

// bw sinks the warm-up, then everything until the client ends the stream,
// and acknowledges the byte count.
func (v *server) bw() error {
	size := v.cfg.Size
	warm := int64(v.cfg.Warmup) * int64(size)
	for got := int64(0); got < warm; {
		n, err := v.s.recvSome(v.buf[:min(int64(size), warm-got)])
		if err != nil {
			if err == io.EOF {
				err = errPeerClosed
			}
			return fmt.Errorf("warm-up, byte %d of %d: %w", got, warm, err)
		}
		got += int64(n)
	}
	if err := v.beginTimed(); err != nil {
		return err
	}
	first := true
	for {
		n, err := v.s.recvSome(v.buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("after %d bytes: receiving: %w", v.bytes, err)
		}
		t := now()
		if first {
			v.start, first = t, false
		}
		v.end = t
		v.bytes += uint64(n)
		if v.hooked {
			if err := v.testHook(); err != nil {
				return err
			}
		}
	}
	if first {
		v.end = v.start
	}
	binary.BigEndian.PutUint64(v.ack[:], v.bytes)
	if err := v.s.sendAll(v.ack[:]); err != nil {
		return fmt.Errorf("acknowledging %d bytes: %w", v.bytes, err)
	}
	v.done = v.bytes / uint64(size)
	if n := uint64(v.cfg.Iterations); n > 0 && v.bytes != n*uint64(size) {
		return fmt.Errorf("received %d bytes, expected %d (%d messages of %d bytes)", v.bytes, n*uint64(size), n, size)
	}
	return v.endTimed()
}
