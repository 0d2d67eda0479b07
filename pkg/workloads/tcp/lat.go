package tcp

import (
	"fmt"
	"io"
)

// tcp_lat: the client sends SIZE bytes, the server echoes them, and the
// client takes one clock reading per iteration, before its send; the
// sample is half the time between consecutive readings, the round trip,
// as ib_write_lat and sockperf ping-pong report it. The client ends the
// run by shutting down its sending side at a message boundary.

// pingPong sends one message and waits for its echo.
func (c *client) pingPong() error {
	if err := c.s.sendAll(c.buf); err != nil {
		return fmt.Errorf("sending: %w", err)
	}
	if err := c.s.recvFull(c.reply); err != nil {
		if err == io.EOF {
			err = errPeerClosed
		}
		return fmt.Errorf("receiving the reply: %w", err)
	}
	return nil
}

func (c *client) lat() error {
	for i := range c.cfg.Warmup {
		if err := c.pingPong(); err != nil {
			return fmt.Errorf("warm-up iteration %d: %w", i+1, err)
		}
	}
	if err := c.beginTimed(); err != nil {
		return err
	}
	iters, deadline := uint64(c.cfg.Iterations), c.start+int64(c.cfg.Duration)
	ts, k := c.ts, 0
	ts[0] = c.start
	for {
		if err := c.pingPong(); err != nil {
			c.end = ts[k]
			c.flushLat(ts[:k+1])
			return fmt.Errorf("iteration %d: %w", c.done+1, err)
		}
		k++
		t := now()
		ts[k] = t
		c.done++
		if c.done == iters || (iters == 0 && t >= deadline) {
			break
		}
		if k == len(ts)-1 { // duration mode only: ts holds N+1 otherwise
			c.flushLat(ts)
			// A fresh reading: the flush is in no sample.
			ts[0], k = now(), 0
		}
	}
	c.end = ts[k]
	c.flushLat(ts[:k+1])
	if err := c.s.closeWrite(); err != nil {
		return fmt.Errorf("ending the run: %w", err)
	}
	return c.endTimed()
}

// flushLat turns len(ts)-1 intervals between timestamps into half round
// trips in place, and keeps them (iteration mode) or folds them into the
// histogram (duration mode). The last timestamp is left as it was.
func (c *client) flushLat(ts []int64) {
	n := len(ts) - 1
	for i := range n {
		ts[i] = (ts[i+1] - ts[i] + 1) / 2
	}
	if c.rec != nil {
		c.rec.RecordChunk(ts[:n])
		return
	}
	c.samples = ts[:n]
}

// lat echoes every message until the client ends the stream.
func (v *server) lat() error {
	for i := range v.cfg.Warmup {
		if err := v.pong(); err != nil {
			if err == io.EOF {
				err = errPeerClosed
			}
			return fmt.Errorf("warm-up iteration %d: %w", i+1, err)
		}
	}
	if err := v.beginTimed(); err != nil {
		return err
	}
	for {
		err := v.pong()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("iteration %d: %w", v.done+1, err)
		}
		v.done++
	}
	v.end = now()
	v.bytes = 2 * v.done * uint64(v.cfg.Size)
	if n := uint64(v.cfg.Iterations); n > 0 && v.done != n {
		return fmt.Errorf("client stopped after %d of %d iterations", v.done, n)
	}
	return v.endTimed()
}

// pong receives one message and echoes it; io.EOF means the client ended
// the stream before the message.
func (v *server) pong() error {
	if err := v.s.recvFull(v.buf); err != nil {
		if err == io.EOF {
			return err
		}
		return fmt.Errorf("receiving: %w", err)
	}
	if v.hooked && v.timed {
		if err := v.testHook(); err != nil {
			return err
		}
	}
	if err := v.s.sendAll(v.buf); err != nil {
		return fmt.Errorf("replying: %w", err)
	}
	return nil
}
