package gate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// How a pair's two runs are made, as Document.PairsAs records it:
// overlapped (set up and torn down together, the timed parts one after
// the other: [PairRunner]) or in turn (one whole run, then the other).
const (
	PairsOverlapped = "overlapped"
	PairsInTurn     = "in turn"
)

// PairRunner measures both runs of a pair at once where it can: the two
// sides set up and tear down together, and their timed parts follow each
// other with nothing else running (docs/gate.md, "Overlapped pairs").
type PairRunner interface {
	Runner
	// Overlaps says whether Pair can be used, and why not when not.
	Overlaps() (bool, string)
	// Pair measures a run of p on each side, the timed part of sides[0]
	// first; the measurements come back in the sides' order.
	Pair(ctx context.Context, sides [2]*Side, p Point) ([2]Measurement, error)
}

// Overlaps says whether the pool's pairs can overlap: both sides in
// workers that hold runs (protocol 2), both ends here (--loopback), and
// no side's command around its runs (which would then run beside the
// other side's run).
func (r *Pool) Overlaps() (bool, string) {
	switch {
	case r.NoOverlap:
		return false, "--overlap=false"
	case len(r.workers) == 0:
		return false, "the sides run as a process per run"
	case !slices.Contains(r.Target, "--loopback"):
		return false, "--host: a remote server's set-up and tear-down cannot be held"
	}
	for s, w := range r.workers {
		switch {
		case w.protocol < 2:
			return false, fmt.Sprintf("the %s side's worker cannot hold a run (protocol %d)", s.Name, w.protocol)
		case s.Before != "" || s.After != "":
			return false, fmt.Sprintf("the %s side has commands around its runs, which would run beside the other side's", s.Name)
		}
	}
	return true, ""
}

// Pair measures one overlapped pair: each side's worker sets up a held
// run at the same time; once both are ready, sides[0]'s timed part runs,
// then sides[1]'s, each while the other side's run waits with nothing
// running; then both report and tear down together. Each run is still
// its own set-up, as a run in a process of its own, so pairs stay
// independent; what the overlap saves is the set-up and tear-down of one
// side a pair, and it brings the two timed parts next to each other in
// time, where the emulator's drift between them is smaller.
func (r *Pool) Pair(ctx context.Context, sides [2]*Side, p Point) ([2]Measurement, error) {
	var got [2]Measurement
	ctx, cancel := context.WithTimeout(ctx, 2*r.Timeout)
	defer cancel()
	var held [2]*worker
	var start [2]time.Time
	for i, s := range sides {
		held[i] = r.workers[s]
		start[i] = time.Now()
		if err := held[i].send(Request{ID: held[i].next + 1, Args: r.Args(s, p)[1:], Hold: true}); err != nil {
			return got, r.pairError(ctx, s, p, err)
		}
	}
	// await waits for side i's next reply, which must be at stage; a
	// final reply instead is the run's failure.
	await := func(i int, stage string) error {
		rep, err := held[i].reply(ctx)
		switch {
		case err != nil:
			return r.pairError(ctx, sides[i], p, err)
		case rep.Stage == stage:
			return nil
		case rep.Stage != "":
			held[i].kill()
			return r.pairError(ctx, sides[i], p, fmt.Errorf("the %s side's worker held at %q, want %q", sides[i].Name, rep.Stage, stage))
		}
		return r.replyError(sides[i], p, rep, fmt.Errorf("ended before %q", stage))
	}
	for i := range held {
		if err := await(i, StageReady); err != nil {
			return got, err
		}
	}
	for i := range held {
		if err := held[i].send(Go{ID: held[i].next, Go: StageReady}); err != nil {
			return got, r.pairError(ctx, sides[i], p, err)
		}
		if err := await(i, StageMeasured); err != nil {
			return got, err
		}
	}
	for i := range held {
		if err := held[i].send(Go{ID: held[i].next, Go: StageMeasured}); err != nil {
			return got, r.pairError(ctx, sides[i], p, err)
		}
	}
	for i, s := range sides {
		rep, err := held[i].reply(ctx)
		if err != nil {
			return got, r.pairError(ctx, s, p, err)
		}
		if rep.Stage != "" {
			held[i].kill()
			return got, r.pairError(ctx, s, p, fmt.Errorf("the %s side's worker held at %q after measuring", s.Name, rep.Stage))
		}
		if rep.Exit != 0 {
			return got, r.replyError(s, p, rep, nil)
		}
		line := r.line(s, p)
		if got[i], err = measurement(s, p, line, []byte(rep.Stdout), time.Since(start[i]).Seconds()); err != nil {
			return got, err
		}
	}
	return got, nil
}

// line is a run's command line, as errors name it.
func (r *Pool) line(s *Side, p Point) string {
	return s.display() + " " + strings.Join(r.Args(s, p), " ") + " (held, in its worker)"
}

// pairError is a held run's failure to talk to its worker, or the end
// of its time.
func (r *Pool) pairError(ctx context.Context, s *Side, p Point, err error) error {
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return fmt.Errorf("%s: no pair within %v (twice --run-timeout)", r.line(s, p), 2*r.Timeout)
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return fmt.Errorf("%s: %w", r.line(s, p), err)
}

// replyError is a held run that ended with rep, unmeasured or failed.
func (r *Pool) replyError(s *Side, p Point, rep Reply, why error) error {
	if rep.Exit == 0 {
		return fmt.Errorf("%s: %w", r.line(s, p), why)
	}
	return runError(s, r.line(s, p), rep.Exit, fmt.Errorf("exit status %d (in its worker): %s", rep.Exit, rep.Error))
}
