package workloads

import (
	"sync"

	"github.com/rdma-bench/rdma-bench/pkg/engine"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// workerResult is what one worker thread measured.
type workerResult struct {
	samples  []int64                 // latency, iteration mode
	rec      *report.LatencyRecorder // latency, duration mode
	raw      []int64                 // duration mode: every sample too (KeepSamples)
	ops      uint64                  // timed operations (bandwidth)
	firstNS  int64                   // the timed span, on the engine clock
	lastNS   int64
	peak     peakTracker
	received uint64
	open     *openResult // an open loop's (--rate)
	// cpu0 and cpu1 bound the timed part (the loop's CPU window); window
	// says they were taken.
	cpu0, cpu1 engine.CPUMark
	window     bool
	// validation is what the worker found wrong in its own checks.
	validation string
	err        error
}

// runWorkers runs every worker on its own thread: the active part, then,
// once all active parts are over and activeDone has run, the passive
// part. activeDone gets the first active error (nil when all went well).
func (s *session) runWorkers(activeDone func(error)) []workerResult {
	n := s.side.workers()
	results := make([]workerResult, n)
	var active, all sync.WaitGroup
	active.Add(n)
	all.Add(n)
	release := make(chan struct{})
	for i := range n {
		// Loaders are never pinned: the scheduler places them among the
		// allowed CPUs, beside the measuring threads.
		cpu := -1
		if s.local.CPU >= 0 && !s.isLoader(i) {
			cpu = s.local.CPU + i
		}
		go func() {
			defer all.Done()
			r := &results[i]
			ran := false
			defer func() {
				// A thread that could not be pinned never ran its
				// part: it must not hold the others at the barrier.
				if !ran {
					s.load.end() // nor keep loaders streaming for it
					active.Done()
				}
			}()
			r.err = onThread(cpu, s.local.placedCPUs(), func() error {
				ran = true
				err := s.active(i, r)
				if err == nil {
					err = s.side.afterActive(i, r)
				}
				active.Done()
				<-release
				if err == nil {
					err = s.passive(i, r)
				}
				return err
			})
		}()
	}
	active.Wait()
	activeDone(firstError(results))
	close(release)
	all.Wait()
	return results
}

// active runs a worker's initiating part: the ping loop or the sends.
func (s *session) active(i int, r *workerResult) error {
	var tk *ticker
	if i == 0 {
		tk = newTicker(s.local, s.spec, s.side.liveOps)
	}
	switch p := s.planOf(i); {
	case p.ping:
		// Loaded: the loaders stream before the warm-up begins and
		// until the timed part ends.
		s.load.awaitLoad()
		defer s.load.end()
		return s.ping(s.side.pinger(i), r, tk)
	case p.send:
		return s.side.send(i, r, tk)
	}
	return nil
}

// passive answers the peer until it is done: pongs, or receives.
func (s *session) passive(i int, r *workerResult) error {
	var st engine.Status
	var err error
	switch p := s.planOf(i); {
	case p.pong:
		st, err = s.side.pong(i)
	case p.recv:
		st, err = s.side.recv(i, r)
	default:
		return nil
	}
	if err == nil && st == engine.StatusStopped && s.aborted() {
		err = errInterrupted
	}
	return err
}

// pingLoop is a measured latency loop in C: an RDMA engine, or the TCP
// baseline's socket loop.
type pingLoop interface {
	yielder
	Ping(n uint64, deadlineNS int64, record bool) (engine.Status, error)
	Timestamps() []int64
	ResetSamples()
	ArmWindow(at uint64)
	Window() (start, end engine.CPUMark, ok bool)
}

// ping runs the latency initiator: warm-up, then the timed iterations.
func (s *session) ping(l pingLoop, r *workerResult, tk *ticker) error {
	c := s.spec
	if c.Rate > 0 {
		return s.pingOpen(l, r, tk)
	}
	// In iteration mode the warm-up runs in the timed loop's own call,
	// its samples dropped: a return to Go between the two wakes the
	// runtime's sysmon, whose polling would then preempt the measuring
	// thread in the timed loop's first milliseconds. Duration mode, whose
	// deadline counts from the end of the warm-up, warms up in a call of
	// its own.
	skip := uint64(0)
	if c.Warmup > 0 && c.Duration > 0 {
		if _, err := outcome(l.Ping(uint64(c.Warmup), 0, false)); err != nil {
			return err
		}
	}
	deadline, remaining := int64(0), uint64(c.Iterations)
	if c.Duration > 0 {
		deadline, remaining = engine.Now()+c.Duration.Nanoseconds(), engine.Forever
		r.rec = report.NewLatencyRecorder()
	} else {
		r.samples = make([]int64, 0, c.Iterations)
		skip = uint64(c.Warmup)
		remaining += skip
	}
	l.ArmWindow(skip)
	tk.share(r.rec)
	tk.start(l)
	defer func() { r.cpu0, r.cpu1, r.window = l.Window() }()
	for {
		st, err := l.Ping(remaining, deadline, true)
		// Timestamps become latencies in place, in the loop's buffer:
		// nothing is allocated per batch.
		ts := l.Timestamps()
		drop := min(skip, uint64(len(ts)-1))
		if drop < uint64(len(ts)-1) {
			if r.firstNS == 0 {
				r.firstNS = ts[drop]
			}
			r.lastNS = ts[len(ts)-1]
		}
		chunk := ts[:len(ts)-1]
		for i := range chunk {
			d := ts[i+1] - ts[i]
			if s.plan.halve {
				d = (d + 1) / 2
			}
			chunk[i] = d
		}
		l.ResetSamples()
		if remaining != engine.Forever {
			remaining -= uint64(len(chunk))
		}
		chunk, skip = chunk[drop:], skip-drop
		r.record(chunk, s.local.KeepSamples)
		tk.latency(l, chunk, c.Size)
		if again, err := outcome(st, err); !again {
			return err
		}
	}
}

// record keeps a batch of latencies: as raw samples (iteration mode) or
// in the histogram (duration mode), with keep raw beside it too.
func (r *workerResult) record(chunk []int64, keep bool) {
	if r.rec == nil {
		r.samples = append(r.samples, chunk...)
		return
	}
	r.rec.RecordChunk(chunk)
	if keep {
		r.raw = append(r.raw, chunk...)
	}
}

// outcome says whether a loop call that returned st and err is to be
// called again (its sample buffer was full, or it yielded for a tick), or
// what the loop ends with.
func outcome(st engine.Status, err error) (again bool, _ error) {
	switch {
	case err != nil:
		return false, err
	case st == engine.StatusStopped:
		return false, errInterrupted
	}
	return st == engine.StatusFull, nil
}
