package workloads

import (
	"errors"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// errInterrupted is returned by a loop stopped before its end.
var errInterrupted = errors.New("interrupted")

// workerResult is what one worker thread measured.
type workerResult struct {
	samples  []int64                 // latency, iteration mode
	rec      *report.LatencyRecorder // latency, duration mode
	ops      uint64
	firstNS  int64
	lastNS   int64
	peak     peakTracker
	received uint64
	// validation is what the worker found wrong in its own checks.
	validation string
	err        error
}

// pinThread locks the goroutine to its OS thread and, with cpu >= 0,
// the thread to that CPU. The caller must unlock the thread.
func pinThread(cpu int) error {
	runtime.LockOSThread()
	if cpu < 0 {
		return nil
	}
	var set unix.CPUSet
	set.Set(cpu % runtime.NumCPU())
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return &pinError{cpu: cpu, err: err}
	}
	return nil
}

type pinError struct {
	cpu int
	err error
}

func (e *pinError) Error() string { return "pinning to cpu " + itoa(e.cpu) + ": " + e.err.Error() }
func (e *pinError) Unwrap() error { return e.err }

// runWorkers runs every worker on its own locked thread: the active part,
// then, once all active parts are over and activeDone has run, the passive
// part. activeDone gets the first active error (nil when all went well).
func (s *session) runWorkers(activeDone func(error)) []workerResult {
	ws := s.node.workers
	results := make([]workerResult, len(ws))
	var active, all sync.WaitGroup
	active.Add(len(ws))
	all.Add(len(ws))
	release := make(chan struct{})
	for i, wk := range ws {
		go func() {
			defer all.Done()
			defer runtime.UnlockOSThread()
			r := &results[i]
			cpu := -1
			if s.cfg.CPU >= 0 {
				cpu = s.cfg.CPU + i
			}
			if r.err = pinThread(cpu); r.err == nil {
				var tk *ticker
				if i == 0 {
					tk = s.newTicker()
				}
				r.err = s.active(wk, r, tk)
			}
			// Atomic results are read back from the peer before it is
			// told we are done, while its memory is still registered.
			if r.err == nil && s.cfg.Validate && validationFor(s.w, s.cfg, s.role) == checkAtomic {
				r.validation = s.checkAtomics(wk, i)
			}
			active.Done()
			<-release
			if r.err == nil {
				r.err = s.passive(wk, r)
			}
		}()
	}
	active.Wait()
	var first error
	for _, r := range results {
		if r.err != nil {
			first = r.err
			break
		}
	}
	activeDone(first)
	close(release)
	all.Wait()
	return results
}

// active runs a worker's initiating part: the ping loop or the sends.
func (s *session) active(wk *worker, r *workerResult, tk *ticker) error {
	switch {
	case s.plan.ping:
		return s.ping(wk, r, tk)
	case s.plan.send:
		return s.stream(wk, r, tk)
	}
	return nil
}

// passive answers the peer until it is done: pongs, or receives.
func (s *session) passive(wk *worker, r *workerResult) error {
	var st verbs.Status
	var err error
	switch {
	case s.plan.pong:
		st, err = wk.eng.Pong(verbs.Forever)
		if err == nil && st == verbs.StatusStopped && s.aborted() {
			err = errInterrupted
		}
	case s.plan.recv:
		// Receive until the peer's last message (after our own sends,
		// when bidirectional).
		st, err = wk.eng.Stream(0, verbs.Forever, 0, false)
		if err == nil && st == verbs.StatusStopped {
			err = errInterrupted
		}
	}
	r.received = wk.eng.Received()
	return err
}

func (s *session) ping(wk *worker, r *workerResult, tk *ticker) error {
	c, eng := s.cfg, wk.eng
	// In iteration mode the warm-up runs in the same engine call as the
	// timed iterations, its samples dropped: a return to Go between the two
	// wakes the runtime's sysmon, whose polling would then preempt the
	// measuring thread in the timed loop's first milliseconds. Duration
	// mode, whose deadline counts from the end of the warm-up, warms up in
	// a call of its own.
	skip := uint64(0)
	if c.Warmup > 0 && c.Duration > 0 {
		st, err := eng.Ping(uint64(c.Warmup), 0, false)
		if err != nil {
			return err
		}
		if st == verbs.StatusStopped {
			return errInterrupted
		}
	}
	deadline, remaining := int64(0), uint64(c.Iterations)
	if c.Duration > 0 {
		deadline, remaining = verbs.Now()+c.Duration.Nanoseconds(), verbs.Forever
		r.rec = report.NewLatencyRecorder()
	} else {
		r.samples = make([]int64, 0, c.Iterations)
		skip = uint64(max(c.Warmup, 0))
		remaining += skip
	}
	tk.share(r.rec)
	tk.start(eng)
	for {
		st, err := eng.Ping(remaining, deadline, true)
		// Timestamps become latencies in place, in the engine's buffer:
		// nothing is allocated per batch, and the next call starts the
		// buffer afresh.
		ts, _ := eng.Samples()
		chunk := ts[:len(ts)-1]
		for i := range chunk {
			d := ts[i+1] - ts[i]
			if s.plan.halve {
				d /= 2
			}
			chunk[i] = d
		}
		eng.ResetSamples()
		if r.rec != nil {
			r.rec.RecordChunk(chunk)
		} else {
			remaining -= uint64(len(chunk))
			drop := min(skip, uint64(len(chunk)))
			chunk, skip = chunk[drop:], skip-drop
			r.samples = append(r.samples, chunk...)
		}
		tk.latency(eng, chunk, s.cfg.Size)
		if again, err := outcome(st, err); !again {
			return err
		}
	}
}

func (s *session) stream(wk *worker, r *workerResult, tk *ticker) error {
	c, eng := s.cfg, wk.eng
	nRecv := uint64(0)
	if s.plan.recv {
		nRecv = verbs.Forever
	}
	if c.Warmup > 0 {
		st, err := eng.Stream(uint64(c.Warmup), nRecv, 0, false)
		if err != nil {
			return err
		}
		if st == verbs.StatusStopped {
			return errInterrupted
		}
	}
	eng.ResetTiming()
	base := eng.Completed()
	deadline, nSend := int64(0), uint64(c.Warmup+c.Iterations)
	if c.Duration > 0 {
		deadline, nSend = verbs.Now()+c.Duration.Nanoseconds(), verbs.Forever
	}
	r.peak = newPeakTracker(s.peakWindow(), c.Size)
	defer func() {
		r.ops = eng.Completed() - base
		r.firstNS, r.lastNS = eng.FirstPostNS(), eng.LastCompletionNS()
	}()
	tk.start(eng)
	for {
		st, err := eng.Stream(nSend, nRecv, deadline, true)
		ts, counts := eng.Samples()
		for i := range counts {
			r.peak.add(ts[i], counts[i])
		}
		eng.ResetSamples()
		tk.bandwidth(eng, s.cfg.Size)
		if again, err := outcome(st, err); !again {
			return err
		}
	}
}

// peakWindow is how many signalled completions one peak window spans:
// a twentieth of the run's in iteration mode, 64 in duration mode.
func (s *session) peakWindow() int {
	if s.cfg.Duration > 0 {
		return 64
	}
	return max(1, s.cfg.Iterations/s.cfg.CQMod/20)
}

// outcome says whether a loop call that returned st and err is to be
// called again (its sample buffer was full, or it yielded for a tick), or
// what the loop ends with.
func outcome(st verbs.Status, err error) (again bool, _ error) {
	switch {
	case err != nil:
		return false, err
	case st == verbs.StatusStopped:
		return false, errInterrupted
	}
	return st == verbs.StatusFull, nil
}
