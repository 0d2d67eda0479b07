package workloads

import (
	"github.com/rdma-bench/rdma-bench/pkg/engine"
)

// pinger is worker i's engine: the RDMA latency loop.
func (n *rdmaSide) pinger(i int) pingLoop { return n.ws[i].eng }

// send runs worker i's bandwidth sender: the warm-up in a call of its own,
// then the timed part, which starts at the next post.
func (n *rdmaSide) send(i int, r *workerResult, tk *ticker) error {
	c, eng := n.s.spec, n.ws[i].eng
	loader, k := n.s.isLoader(i), i-c.ThreadCount()
	if loader {
		defer n.s.load.streaming(k) // also when the warm-up failed
	}
	nRecv := uint64(0)
	if n.s.planOf(i).recv {
		nRecv = engine.Forever
	}
	if c.Warmup > 0 {
		if _, err := outcome(eng.Stream(uint64(c.Warmup), nRecv, 0, false)); err != nil {
			return err
		}
	}
	eng.ResetTiming()
	eng.ArmWindow(0)
	base := eng.Completed()
	deadline, nSend := int64(0), uint64(c.Warmup+c.Iterations)
	if c.Duration > 0 {
		deadline, nSend = engine.Now()+c.Duration.Nanoseconds(), engine.Forever
	}
	if loader {
		// A loader streams until the latency loop is done (loadSync).
		deadline, nSend = 0, engine.Forever
		n.s.load.streaming(k)
	}
	r.peak = newPeakTracker(n.peakWindow(), c.Size)
	defer func() {
		r.ops = eng.Completed() - base
		r.firstNS, r.lastNS = eng.FirstPostNS(), eng.LastCompletionNS()
		r.cpu0, r.cpu1, r.window = eng.Window()
	}()
	tk.start(eng)
	for {
		if loader {
			deadline = n.s.load.next(eng)
		}
		st, err := eng.Stream(nSend, nRecv, deadline, true)
		ts, counts := eng.Samples()
		for k := range counts {
			r.peak.add(ts[k], counts[k])
		}
		eng.ResetSamples()
		tk.bandwidth(eng, c.Size)
		if again, err := outcome(st, err); !again {
			return err
		}
	}
}

// peakWindow is how many signalled completions one peak window spans:
// a twentieth of the run's in iteration mode, 64 in duration mode.
func (n *rdmaSide) peakWindow() int {
	c := n.s.spec
	if c.Duration > 0 {
		return 64
	}
	return max(1, c.Iterations/c.CQMod/20)
}

// afterActive reads back the peer's atomic target to validate it, while
// the peer's memory is still registered (before it is told we are done).
func (n *rdmaSide) afterActive(i int, r *workerResult) error {
	if n.s.spec.Validate && validationFor(n.s.w, n.s.spec, n.s.role) == checkAtomic {
		r.validation = n.checkAtomics(n.ws[i], i)
	}
	return nil
}

// pong answers pings until endPassive stops the engine.
func (n *rdmaSide) pong(i int) (engine.Status, error) { return n.ws[i].eng.Pong(engine.Forever) }

// recv takes receives until the peer's last message (after this side's
// own sends, when bidirectional).
func (n *rdmaSide) recv(i int, r *workerResult) (engine.Status, error) {
	eng := n.ws[i].eng
	st, err := eng.Stream(0, engine.Forever, 0, false)
	r.received = eng.Received()
	if err == nil && st == engine.StatusStopped {
		err = errInterrupted
	}
	return st, err
}

func (n *rdmaSide) liveOps() uint64 {
	ops := uint64(0)
	for i, wk := range n.ws {
		if n.s.isLoader(i) {
			continue // the live figures are the point's, not the load's
		}
		ops += wk.eng.LiveOps()
	}
	return ops
}

// endPassive ends the passive loops: pongs stop, receivers drain and stop.
func (n *rdmaSide) endPassive() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for i, wk := range n.ws {
		if n.s.planOf(i).pong {
			wk.eng.Stop()
		} else {
			wk.eng.StopRecv()
		}
	}
}

func (n *rdmaSide) abort() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, wk := range n.ws {
		wk.eng.Stop()
	}
}
