package workloads

import (
	"context"
	"errors"
	"fmt"
)

// Stages at which a held loopback run waits for its caller ([WithHold]).
const (
	// HoldReady: both sides are set up (device, memory, queue pairs
	// connected, garbage collected) and nothing runs; the timed part
	// begins when the hold returns.
	HoldReady = "ready"
	// HoldMeasured: the timed part and the counters around it are over,
	// and nothing runs; the report and the tear-down follow the hold.
	HoldMeasured = "measured"
)

// Hold is called by a held loopback run at each of its stages, in order,
// and blocks until the caller lets the run go on. An error at HoldReady
// ends the run before it measures; one at HoldMeasured is ignored (what
// was measured is reported).
type Hold func(ctx context.Context, stage string) error

type holdKey struct{}

// WithHold makes the loopback runs made under ctx wait at their stages
// for h: the gate's worker uses it to put two processes' timed parts next
// to each other, their set-up and tear-down overlapped, while neither
// side's threads run during the other's timed part (docs/gate.md,
// "Overlapped pairs"). Only Loopback honours it.
func WithHold(ctx context.Context, h Hold) context.Context {
	return context.WithValue(ctx, holdKey{}, h)
}

func holdFrom(ctx context.Context) Hold {
	h, _ := ctx.Value(holdKey{}).(Hold)
	return h
}

// loopbackHolds splits h between the two sides of a loopback pair: the
// client calls h at each stage; the server waits at the same stage until
// the client's hold has returned, so that it neither waits at the ready
// barrier (whose read has a deadline) nor tears down while the caller
// holds. done is the pair's context, cancelled when the client fails.
func loopbackHolds(ctx, done context.Context, h Hold) (client, server func(string) error) {
	released := map[string]chan struct{}{HoldReady: make(chan struct{}), HoldMeasured: make(chan struct{})}
	var failed error
	client = func(stage string) error {
		err := h(ctx, stage)
		if err != nil && stage == HoldReady {
			failed = fmt.Errorf("held before measuring: %w", err)
		}
		close(released[stage])
		return failed
	}
	server = func(stage string) error {
		select {
		case <-released[stage]:
			return failed
		case <-done.Done():
			return context.Cause(done)
		}
	}
	return client, server
}

// hold waits at stage when the run is held; nil otherwise.
func (s *session) hold(stage string) error {
	if s.local.hold == nil {
		return nil
	}
	err := s.local.hold(stage)
	if err != nil && stage == HoldMeasured {
		return nil
	}
	return err
}

// errHoldRemote refuses a hold where the server is not this process's.
var errHoldRemote = errors.New("a held run needs --loopback: a remote server's set-up and tear-down cannot be held")
