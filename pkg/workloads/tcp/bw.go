package tcp

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
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
	l := c.s.loop
	if st, err := l.SendStream(uint64(c.cfg.Warmup), 0); st != verbs.StatusDone {
		return fmt.Errorf("warm-up message %d: %w", l.Done()+1, c.s.outcome(st, err))
	}
	if err := c.beginTimed(); err != nil {
		return err
	}
	l.ResetCounts()
	n, deadline := c.bounds()
	tk := report.NewTicker(c.cfg.ReportInterval, c.cfg.Progress)
	l.SetYield(tk.Start(c.start))
	st, err := l.SendStream(n, deadline)
	for st == verbs.StatusFull { // a tick: the messages handed to the kernel so far
		l.SetYield(tk.Ops(l.Done(), c.cfg.Size, now()))
		st, err = l.SendStream(left(n, l.Done()), deadline)
	}
	c.done = l.Done()
	if st != verbs.StatusDone && st != verbs.StatusDeadline {
		c.end = now()
		return fmt.Errorf("message %d: sending: %w", c.done+1, c.s.outcome(st, err))
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
// and acknowledges the byte count. Its span runs from the first timed
// arrival to the last, as the loop noted them.
func (v *server) bw() error {
	size := uint64(v.cfg.Size)
	warm := uint64(v.cfg.Warmup) * size
	l := v.s.loop
	if st, err := l.RecvStream(warm); st != verbs.StatusDone {
		err := v.s.outcome(st, err)
		if err == io.EOF {
			err = errPeerClosed
		}
		return fmt.Errorf("warm-up, byte %d of %d: %w", l.Bytes(), warm, err)
	}
	if err := v.beginTimed(); err != nil {
		return err
	}
	l.ResetCounts()
	for {
		limit := verbs.Forever
		if v.hooked { // one message per call, the hook in between
			limit = l.Bytes() + size
		}
		st, err := l.RecvStream(limit)
		v.bytes = l.Bytes()
		if st == verbs.StatusDone {
			if err := v.testHook(); err != nil {
				return err
			}
			continue
		}
		if err := v.s.outcome(st, err); err != io.EOF {
			return fmt.Errorf("after %d bytes: receiving: %w", v.bytes, err)
		}
		break
	}
	if first, last := l.Arrivals(); first != 0 {
		v.start, v.end = first, last
	} else {
		v.end = v.start
	}
	binary.BigEndian.PutUint64(v.ack[:], v.bytes)
	if err := v.s.sendAll(v.ack[:]); err != nil {
		return fmt.Errorf("acknowledging %d bytes: %w", v.bytes, err)
	}
	v.done = v.bytes / size
	if n := uint64(v.cfg.Iterations); n > 0 && v.bytes != n*size {
		return fmt.Errorf("received %d bytes, expected %d (%d messages of %d bytes)", v.bytes, n*size, n, size)
	}
	return v.endTimed()
}
