package workloads

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/counters"
	"github.com/rdma-bench/rdma-bench/pkg/engine"
	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// session is one side of one run, RDMA or TCP: the resolved parameters,
// the local settings, the control connection and the transport's side.
type session struct {
	spec  point.Resolved
	local Local
	w     catalog.Workload
	role  role
	plan  plan
	// loader is a loader worker's plan (--loaders): the bandwidth
	// counterpart's (catalog.LoaderOf); workers from spec.ThreadCount()
	// on are loaders.
	loader plan
	// load holds a client's latency loop and loaders together; nil
	// without loaders, and on the server (whose loaders only answer).
	load   *loadSync
	conn   *exchange.Conn
	side   side
	port   *portWatch // the port's counters; nil without them
	cmPort int        // rdma_cm's port: the exchange's port number
	abort  atomic.Bool
	// alive is when the peer last showed a sign of life while measuring
	// (unix nanoseconds): a loop without progress while the peer lives
	// lost a completion ([lostCompletion]).
	alive atomic.Int64
}

func newSession(spec point.Resolved, local Local, w catalog.Workload, r role, conn *exchange.Conn, port int) *session {
	s := &session{spec: spec, local: local, w: w, role: r, plan: planFor(w, spec, r), conn: conn, cmPort: port}
	if lw, ok := catalog.LoaderOf(w); ok && spec.Loaders > 0 {
		s.loader = planFor(lw, spec, r)
		if s.loader.send {
			s.load = newLoadSync(spec.Loaders)
		}
	}
	return s
}

// isLoader tells whether worker i streams load (--loaders) rather than
// measuring the point.
func (s *session) isLoader(i int) bool { return i >= s.spec.ThreadCount() }

// planOf is worker i's plan: the point's, or a loader's.
func (s *session) planOf(i int) plan {
	if s.isLoader(i) {
		return s.loader
	}
	return s.plan
}

func (s *session) aborted() bool { return s.abort.Load() }

// stop makes every loop return; abort marks it as an interruption rather
// than the normal end of a passive part.
func (s *session) stop(abort bool) {
	if abort {
		s.abort.Store(true)
	}
	s.side.abort()
}

// run is one side of one run, in these phases:
//
//	open     this side's transport: the RDMA device, its protection
//	         domain, CQs, memory and QPs; or the TCP data listener
//	connect  endpoints exchanged, then QPs brought to RTS (or the data
//	         connection made) and receives posted
//	ready    a barrier: both sides are connected and armed (a held
//	         run waits before it, and again after measure: WithHold)
//	measure  every worker's active part (warm-up, then the timed part),
//	         then its passive part until the peer is done
//	report   the server sends its figures; the client builds the result
//	         from both sides'
//
// The client gets the result (partial, with the error, when the run failed
// after it began); the server returns nil and its error.
func (s *session) run(ctx context.Context) (*report.Result, error) {
	if err := s.open(); err != nil {
		s.conn.SendError(err)
		return nil, err
	}
	defer s.side.close()
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	s.port = s.watchPort()
	defer s.port.close()
	// Set-up garbage is collected now, not by a GC cycle whose mark
	// workers would share the CPUs with the timed run; the mappings the
	// set-up added (the device's provider library) are made resident now,
	// not faulted in by Go code first run during the loop (the program's
	// own were before the connection: RunClient, Server.Serve). A
	// loopback server leaves both to its client: one process.
	if !s.local.loopbackServer {
		engine.PrefaultMappings()
		runtime.GC()
	}
	if err := s.hold(HoldReady); err != nil {
		return nil, err
	}
	if err := s.conn.Barrier("ready"); err != nil {
		return nil, err
	}
	m := s.measure(ctx)
	s.hold(HoldMeasured) // never an error: what was measured is reported
	return s.report(m)
}

func (s *session) open() (err error) {
	if s.w.Family == catalog.TCP {
		s.side, err = openTCP(s)
	} else {
		s.side, err = openRDMA(s)
	}
	return err
}

// connect exchanges endpoints and connects the side to the peer's.
func (s *session) connect(ctx context.Context) error {
	peer, err := s.conn.ExchangeEndpoints(s.side.endpoints())
	if err != nil {
		return err
	}
	if err := s.side.connect(ctx, peer); err != nil {
		s.conn.SendError(err)
		return err
	}
	return nil
}

// measurement is what the measure phase leaves: each worker's figures,
// the peer's failure if any, and this side's CPU over its whole part.
type measurement struct {
	workers     []workerResult
	runErr      error
	cpu0        engine.CPUMark
	cpu1        engine.CPUMark
	counters    *counters.Deltas
	countersErr string
}

// Phases of the Sync messages exchanged while measuring: each side sends
// "alive" every quarter of the idle timeout, so that a peer that stops
// answering (SIGSTOP, a frozen host, a partition) is noticed within the idle
// timeout even by a side with nothing to time; "done" ends a side's active
// part.
const (
	phaseAlive = "alive"
	phaseDone  = "done"
)

// heartbeat sends "alive" at a quarter of the idle timeout until stopped;
// stop waits for it to end, so that nothing follows the "done" a caller
// sends next.
func (s *session) heartbeat() (stop func()) {
	quit, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(s.local.IdleTimeout / 4)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				if s.conn.Send(exchange.Sync{Phase: phaseAlive}) != nil {
					return
				}
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			<-ended
		})
	}
}

// measure runs the workers and the exchange of "done" with the peer.
func (s *session) measure(ctx context.Context) measurement {
	hookDone := make(chan struct{})
	stopHook := context.AfterFunc(ctx, func() {
		defer close(hookDone)
		s.stop(true)
	})
	// The side is closed after measure returns: a hook already running
	// must finish first.
	defer func() {
		if !stopHook() {
			<-hookDone
		}
	}()
	peerDone := make(chan error, 1)
	s.alive.Store(time.Now().UnixNano())
	go func() { peerDone <- s.awaitPeerDone() }()
	stopBeats := s.heartbeat()
	defer stopBeats()
	s.port.start()
	m := measurement{cpu0: engine.SampleCPU()}
	// A side with nothing to time (the target of READs, WRITEs and
	// atomics, the receiver of SENDs) tells the peer it is done only once
	// the peer is: a message on the control connection wakes the peer's
	// reader and takes the network stack's CPU time at the start of the
	// peer's timed loop.
	quiet := !s.plan.ping && !s.plan.send && !(s.spec.Loaders > 0 && s.loader.send)
	done := func() {
		stopBeats()
		if err := s.conn.Send(exchange.Sync{Phase: phaseDone}); err != nil {
			s.stop(true)
		}
	}
	m.workers = s.runWorkers(func(activeErr error) {
		if activeErr != nil {
			s.conn.SendError(activeErr)
			s.stop(true)
			return
		}
		if !quiet {
			done()
		}
	})
	m.runErr = s.lostCompletion(firstError(m.workers))
	peerErr := <-peerDone
	if quiet && peerErr == nil && m.runErr == nil {
		done()
	}
	m.cpu1 = engine.SampleCPU()
	m.counters, m.countersErr = s.port.deltas()
	// A loop stopped because the peer failed or vanished reports why.
	if peerErr != nil && (m.runErr == nil || (errors.Is(m.runErr, errInterrupted) && ctx.Err() == nil)) {
		m.runErr = peerErr
	}
	// Once interrupted, a failure is its consequence (in loopback, the
	// peer's abort closes the connection under this side's loop).
	if m.runErr != nil && ctx.Err() != nil {
		m.runErr = fmt.Errorf("%w: %w", errInterrupted, context.Cause(ctx))
	}
	return m
}

// awaitPeerDone waits for the peer to finish its active part, as long as
// it shows signs of life, then ends this side's passive part.
func (s *session) awaitPeerDone() error {
	for {
		var msg exchange.Sync
		err := s.conn.RecvTimeout(exchange.MsgSync, &msg, s.local.IdleTimeout)
		if err == nil && msg.Phase == phaseAlive {
			s.alive.Store(time.Now().UnixNano())
			continue
		}
		if err == nil && msg.Phase != phaseDone {
			err = fmt.Errorf("peer sent phase %q, want %s", exchange.Sanitize(msg.Phase), phaseDone)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			err = fmt.Errorf("the peer stopped answering: no sign of life for %v", s.local.IdleTimeout)
		}
		if err != nil {
			s.stop(true)
			return fmt.Errorf("waiting for the peer to finish: %w", err)
		}
		s.side.endPassive()
		return nil
	}
}

func firstError(results []workerResult) error {
	for _, r := range results {
		if r.err != nil {
			return r.err
		}
	}
	return nil
}
