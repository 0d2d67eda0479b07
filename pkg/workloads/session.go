package workloads

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// session is one side of one run: its configuration, resources and
// control connection.
type session struct {
	cfg     *Config
	w       Workload
	role    role
	plan    plan
	conn    *exchange.Conn
	node    *node
	peer    exchange.Endpoints
	abort   atomic.Bool
	started time.Time
}

func (s *session) aborted() bool { return s.abort.Load() }

// stopAll makes every engine loop return; abort marks it as an
// interruption rather than the normal end of a passive part.
func (s *session) stopAll(abort bool) {
	if abort {
		s.abort.Store(true)
	}
	for _, wk := range s.node.workers {
		if wk.eng != nil {
			wk.eng.Stop()
		}
	}
}

// figures are one side's own measurements, sent to the peer at the end.
type figures struct {
	CPU        report.CPUUsage `json:"cpu"`
	Ops        uint64          `json:"ops"`
	Received   uint64          `json:"received"`
	ElapsedNS  int64           `json:"elapsed_ns"`
	PeakGbps   float64         `json:"peak_gbps"`
	Validation string          `json:"validation,omitempty"`
}

// peerWait bounds the wait for the peer's end of the run.
func (s *session) peerWait() time.Duration {
	if s.cfg.Duration > 0 {
		return s.cfg.Duration + 2*s.cfg.IdleTimeout + time.Minute
	}
	return time.Hour
}

// run sets up this side, runs it, and exchanges figures. The client gets
// a result; the server returns nil and an error if anything failed.
func (s *session) run(ctx context.Context) (*report.Result, error) {
	var err error
	s.plan = planFor(s.w, s.cfg, s.role)
	if s.node, err = openNode(s.cfg, s.w); err != nil {
		s.conn.SendError(err)
		return nil, err
	}
	defer s.node.Close()
	// The clock is chosen (and calibrated, if it is the TSC) before any
	// loop reads it.
	verbs.CurrentClock()
	var cml *verbs.CMListener
	if s.cfg.RDMACM && s.role == server {
		if cml, err = s.node.cmListen(s.cfg.CMPort); err != nil {
			s.conn.SendError(err)
			return nil, err
		}
		defer cml.Close()
	}
	if s.peer, err = s.conn.ExchangeEndpoints(s.node.endpoints()); err != nil {
		return nil, err
	}
	if s.cfg.RDMACM {
		if err := s.node.cmConnect(cml, verbs.GID(s.peer.QPs[0].GID), s.cfg.CMPort); err != nil {
			s.conn.SendError(err)
			return nil, err
		}
	}
	if err := s.prepare(); err != nil {
		s.conn.SendError(err)
		return nil, err
	}
	// Set-up garbage is collected now, not by a GC cycle whose mark
	// workers would share the CPUs with the timed run (the loop itself
	// allocates nothing, so none starts during it). The program's pages
	// are made resident now too, not faulted in by the Go code that first
	// runs during the loop.
	verbs.PrefaultMappings()
	runtime.GC()
	if err := s.conn.Barrier("ready"); err != nil {
		return nil, err
	}
	stopOnCancel := context.AfterFunc(ctx, func() { s.stopAll(true) })
	defer stopOnCancel()

	peerDone := make(chan error, 1)
	go func() { peerDone <- s.awaitPeerDone() }()
	cpu0, cpuErr := report.SampleCPU()
	s.started = time.Now()
	// A side with nothing to time (the target of READs, WRITEs and
	// atomics, the receiver of SENDs) tells the peer it is done only once
	// the peer is: a message on the control connection wakes the peer's
	// reader and takes the network stack's CPU time at the start of the
	// peer's timed loop, which in short runs shows in the result.
	quiet := !s.plan.ping && !s.plan.send
	done := func() {
		if err := s.conn.Send(exchange.Sync{Phase: "done"}); err != nil {
			s.stopAll(true)
		}
	}
	results := s.runWorkers(func(activeErr error) {
		if activeErr != nil {
			s.conn.SendError(activeErr)
			s.stopAll(true)
			return
		}
		if !quiet {
			done()
		}
	})
	peerErr := <-peerDone
	if quiet && peerErr == nil && firstError(results) == nil {
		done()
	}
	cpu1, _ := report.SampleCPU()
	runErr := firstError(results)
	// A loop stopped because the peer failed or vanished reports why.
	if peerErr != nil && (runErr == nil || (errors.Is(runErr, errInterrupted) && ctx.Err() == nil)) {
		runErr = peerErr
	}
	if errors.Is(runErr, errInterrupted) && ctx.Err() != nil {
		runErr = fmt.Errorf("%w: %w", errInterrupted, context.Cause(ctx))
	}
	var usage *report.CPUUsage
	if cpuErr == nil {
		u := cpu1.Since(cpu0)
		usage = &u
	}
	own := s.figures(results, usage)
	if runErr == nil {
		own.Validation = s.validate(results)
	}
	if s.role == server {
		if runErr != nil {
			return nil, runErr
		}
		payload, err := json.Marshal(own)
		if err != nil {
			return nil, fmt.Errorf("encoding server figures: %w", err)
		}
		return nil, s.conn.Send(exchange.Result{Payload: payload})
	}
	res := s.result(results, own)
	if runErr != nil {
		return res, runErr
	}
	var msg exchange.Result
	if err := s.conn.Recv(exchange.MsgResult, &msg); err != nil {
		return res, err
	}
	var theirs figures
	if err := json.Unmarshal(msg.Payload, &theirs); err != nil {
		return res, fmt.Errorf("decoding server figures: %w", err)
	}
	s.addServer(res, theirs)
	switch {
	case own.Validation != "":
		return res, fmt.Errorf("validation failed on the client: %s", own.Validation)
	case theirs.Validation != "":
		return res, fmt.Errorf("validation failed on the server: %s", theirs.Validation)
	}
	return res, nil
}

// prepare posts receives before the peer may send, and patterns memory.
func (s *session) prepare() error {
	if err := s.node.connect(s.peer); err != nil {
		return err
	}
	s.fillPatterns()
	if s.plan.postRecvs {
		for _, wk := range s.node.workers {
			if err := wk.eng.PostReceives(); err != nil {
				return err
			}
		}
	}
	return nil
}

// awaitPeerDone waits for the peer to finish its active part, then ends
// this side's passive part: pongs stop, receivers drain and stop.
func (s *session) awaitPeerDone() error {
	var sync exchange.Sync
	err := s.conn.RecvTimeout(exchange.MsgSync, &sync, s.peerWait())
	if err == nil && sync.Phase != "done" {
		err = fmt.Errorf("peer sent phase %q, want done", sync.Phase)
	}
	if err != nil {
		s.stopAll(true)
		return fmt.Errorf("waiting for the peer to finish: %w", err)
	}
	for _, wk := range s.node.workers {
		if s.plan.pong {
			wk.eng.Stop()
		} else {
			wk.eng.StopRecv()
		}
	}
	return nil
}

func firstError(results []workerResult) error {
	for _, r := range results {
		if r.err != nil {
			return r.err
		}
	}
	return nil
}

// figures sums what this side's workers measured.
func (s *session) figures(results []workerResult, cpu *report.CPUUsage) figures {
	var f figures
	if cpu != nil {
		f.CPU = *cpu
	}
	var first, last int64
	for _, r := range results {
		f.Ops += r.ops
		f.Received += r.received
		f.PeakGbps += r.peak.gbps()
		if r.firstNS != 0 && (first == 0 || r.firstNS < first) {
			first = r.firstNS
		}
		last = max(last, r.lastNS)
	}
	if first != 0 && last > first {
		f.ElapsedNS = last - first
	}
	return f
}
