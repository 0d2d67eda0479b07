package tcp

import (
	"fmt"
	"io"

	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// tcp_lat: the client sends SIZE bytes, the server echoes them, and the
// client takes one clock reading per iteration, before its send; the
// sample is half the time between consecutive readings, the round trip,
// as ib_write_lat and sockperf ping-pong report it. The client ends the
// run by shutting down its sending side at a message boundary. Both loops
// run in C (verbs.SockLoop), one call per chunk of latChunk samples
// (client) or per run (server).

// pingErr describes a failed ping-pong iteration.
func (c *client) pingErr(st verbs.Status, err error) error {
	e := c.s.opErr(st, err, "sending", "receiving the reply")
	if e == io.EOF {
		return fmt.Errorf("receiving the reply: %w", errPeerClosed)
	}
	return e
}

func (c *client) lat() error {
	l := c.s.loop
	if st, err := l.Ping(uint64(c.cfg.Warmup), 0, false); st != verbs.StatusDone {
		return fmt.Errorf("warm-up iteration %d: %w", l.Done()+1, c.pingErr(st, err))
	}
	if err := c.beginTimed(); err != nil {
		return err
	}
	l.ResetCounts()
	n, deadline := c.bounds()
	tk := report.NewTicker(c.cfg.ReportInterval, c.cfg.Progress)
	tk.Share(c.rec)
	l.SetYield(tk.Start(c.start))
	for {
		st, err := l.Ping(left(n, c.done), deadline, true)
		ts := l.Samples()
		c.end = ts[len(ts)-1]
		c.done = l.Done()
		chunk := c.flushLat(ts)
		l.ResetSamples()
		l.SetYield(tk.Latency(chunk, c.cfg.Size, c.end))
		if st == verbs.StatusFull {
			continue // the next call's first reading is fresh: the flush is in no sample
		}
		if st != verbs.StatusDone && st != verbs.StatusDeadline {
			return fmt.Errorf("iteration %d: %w", c.done+1, c.pingErr(st, err))
		}
		break
	}
	if err := c.s.closeWrite(); err != nil {
		return fmt.Errorf("ending the run: %w", err)
	}
	return c.endTimed()
}

// flushLat turns the len(ts)-1 intervals between timestamps into half
// round trips in place (ts is the loop's buffer), keeps them (iteration
// mode) or folds them into the histogram (duration mode), and returns
// them.
func (c *client) flushLat(ts []int64) []int64 {
	chunk := ts[:len(ts)-1]
	for i := range chunk {
		chunk[i] = (ts[i+1] - ts[i] + 1) / 2
	}
	if c.rec != nil {
		c.rec.RecordChunk(chunk)
	} else {
		c.samples = append(c.samples, chunk...)
	}
	return chunk
}

// lat echoes every message until the client ends the stream.
func (v *server) lat() error {
	l := v.s.loop
	if st, err := l.Pong(uint64(v.cfg.Warmup)); st != verbs.StatusDone {
		err := v.s.opErr(st, err, "replying", "receiving")
		if err == io.EOF {
			err = errPeerClosed
		}
		return fmt.Errorf("warm-up iteration %d: %w", l.Done()+1, err)
	}
	if err := v.beginTimed(); err != nil {
		return err
	}
	l.ResetCounts()
	for {
		n := verbs.Forever
		if v.hooked { // one message per call, the hook in between
			if err := v.testHook(); err != nil {
				return err
			}
			n = 1
		}
		st, err := l.Pong(n)
		v.done = l.Done()
		if st == verbs.StatusDone {
			continue
		}
		if err := v.s.opErr(st, err, "replying", "receiving"); err != io.EOF {
			return fmt.Errorf("iteration %d: %w", v.done+1, err)
		}
		break
	}
	v.end = now()
	v.bytes = 2 * v.done * uint64(v.cfg.Size)
	if n := uint64(v.cfg.Iterations); n > 0 && v.done != n {
		return fmt.Errorf("client stopped after %d of %d iterations", v.done, n)
	}
	return v.endTimed()
}
