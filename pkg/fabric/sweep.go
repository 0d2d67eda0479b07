package fabric

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// Defaults for a zero SweepConfig field.
const (
	DefaultPairTimeout = 60 * time.Second
	DefaultGrace       = 10 * time.Second
)

// SweepConfig says what a sweep measures. Rank 0 decides the schedule and
// the times; on the other ranks only Measurer is used.
type SweepConfig struct {
	// Measurer measures one pair; it is called on both hosts of a pair.
	Measurer Measurer
	// Pattern is the schedule (Pattern* constants).
	Pattern string
	// PairTimeout bounds one pair's Serve and Measure. Zero means 60s.
	PairTimeout time.Duration
	// Grace is how much longer than PairTimeout rank 0 waits for a rank's
	// report before declaring it silent. Zero means 10s.
	Grace time.Duration
	// Workloads are recorded in the document.
	Workloads []string
	// DropResults keeps only each pair's figures, not its full result:
	// the measuring ranks do not even send it. Rank 0 then holds about
	// 210 bytes a pair (220 MiB for 1024 ranks' 1047552 pairs) instead
	// of that plus the results.
	DropResults bool
	// PairsDir is where rank 0 logs the pairs as their rounds end, until
	// the outputs are written (see PairLog); "" is the system's
	// temporary directory.
	PairsDir string
	// Progress, when not nil, receives a line on rank 0 after each round
	// and each re-measured suspect; nil writes nothing.
	Progress io.Writer
	// Outliers say which pairs are suspects once the sweep is over; rank
	// 0 then re-measures each as Recheck says (see Recheck).
	Outliers OutlierOptions
	Recheck  RecheckOptions
	// Probe makes the sweep a probe pass: the Measurer measures one
	// iteration a workload (the caller sets that up), and rank 0 looks
	// for no suspects; the document is marked Probe.
	Probe bool
	// Rails makes the schedule rail-aligned: the pattern within each
	// rail of ranks whose devices share a name (RailsOf), never across.
	Rails bool
}

// Sweep measures the schedule's pairs round by round, in lockstep through
// rank 0: in each round rank 0 tells every rank its part (serve, measure
// or stay idle) and waits for every rank's report before the next round,
// so no host is in two rounds at once. Within a round a host measures or
// serves one pair, but an incast round's receiver, which serves its
// round's pairs at once, one listener each (see Round).
//
// After the schedule's rounds, rank 0 finds the suspects (FindSuspects)
// and re-measures each beside its reference pair in rounds of one pair
// (see Recheck); the document says which are outliers.
//
// On rank 0 Sweep returns the Document. A rank whose connection drops, or
// that stays silent PairTimeout+Grace past its assignment, leaves the
// sweep: its pairs are marked failed with the reason and the others go on.
// If ctx is cancelled, rank 0 stops every rank and returns the partial
// document with the error. On the other ranks Sweep returns a nil
// document, and an error if rank 0 was lost or stopped the sweep.
//
// Sweep closes the session's connections when it returns.
func (s *Session) Sweep(ctx context.Context, cfg SweepConfig) (*Document, error) {
	defer s.Close()
	if cfg.Measurer == nil {
		return nil, errors.New("sweep: no measurer")
	}
	if cfg.PairTimeout <= 0 {
		cfg.PairTimeout = DefaultPairTimeout
	}
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultGrace
	}
	if s.World.Rank == 0 {
		return s.sweepRank0(ctx, cfg)
	}
	if err := s.sweepWorker(ctx, cfg); err != nil {
		return nil, fmt.Errorf("sweep of rank %d: %w", s.World.Rank, err)
	}
	return nil, nil
}

// sweepWorker follows rank 0's assignments until it says finish.
func (s *Session) sweepWorker(ctx context.Context, cfg SweepConfig) error {
	l := s.up
	m, err := l.recv(ctx, s.cfg.Timeout)
	if err != nil {
		return fmt.Errorf("waiting for the start: %w", err)
	}
	if m.Type == msgError {
		return fmt.Errorf("rank 0 stopped the sweep: %s", m.Error)
	}
	if m.Type != msgStart || m.Start == nil || m.Start.PairTimeoutNS <= 0 || m.Start.GraceNS < 0 {
		return fmt.Errorf("from rank 0: %q message, want a start with a positive pair timeout", m.Type)
	}
	pairTimeout := time.Duration(m.Start.PairTimeoutNS)
	dropResults := m.Start.DropResults
	// A round lasts at most pairTimeout+grace; then comes the next one.
	bound := pairTimeout + 2*time.Duration(m.Start.GraceNS) + s.cfg.IOTimeout
	for {
		m, err := l.recv(ctx, bound)
		if err != nil {
			return fmt.Errorf("lost rank 0: %w", err)
		}
		switch {
		case m.Type == msgAssign && m.Assign != nil:
			d, err := performWatched(ctx, l, cfg.Measurer, s.Members, m.Assign, pairTimeout, bound)
			if err != nil {
				return err
			}
			if dropResults {
				d.Result = nil
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := l.send(ctx, &message{Type: msgDone, Done: d}, s.cfg.IOTimeout); err != nil {
				return err
			}
		case m.Type == msgAbandon:
			continue // this rank's serving ended before rank 0's word came
		case m.Type == msgFinish:
			return nil
		case m.Type == msgError:
			return fmt.Errorf("rank 0 stopped the sweep: %s", m.Error)
		default:
			return fmt.Errorf("from rank 0: unexpected %q message", m.Type)
		}
	}
}

// performWatched performs an assignment while watching the link to rank
// 0, which says nothing until it has this rank's report unless it stops
// the sweep: a stop, or a lost rank 0, ends the measurement at once
// rather than when the pair's time is up (a server waiting for a client
// that rank 0's end took away would otherwise wait it out).
func performWatched(ctx context.Context, l *link, m Measurer, members []Member, a *assignMsg, pairTimeout, bound time.Duration) (*doneMsg, error) {
	mctx, stopMeasuring := context.WithCancel(ctx)
	defer stopMeasuring()
	wctx, stopWatching := context.WithCancel(ctx)
	type heard struct {
		m      *message
		err    error
		ourEnd bool // the watch ended because the measurement did
	}
	ch := make(chan heard, 1)
	go func() {
		msg, err := l.recv(wctx, bound)
		h := heard{m: msg, err: err, ourEnd: err != nil && wctx.Err() != nil}
		if !h.ourEnd {
			stopMeasuring()
		}
		ch <- h
	}()
	d := perform(mctx, m, members, a, pairTimeout)
	stopWatching()
	h := <-ch
	switch {
	case h.ourEnd:
		return d, nil
	case h.err != nil:
		return nil, fmt.Errorf("lost rank 0 during round %d: %w", a.Round, h.err)
	case h.m.Type == msgAbandon && h.m.Assign != nil && h.m.Assign.Round == a.Round:
		abandoned(d)
		return d, nil
	case h.m.Type == msgError:
		return nil, fmt.Errorf("rank 0 stopped the sweep: %s", h.m.Error)
	}
	return nil, fmt.Errorf("from rank 0 during round %d: unexpected %q message", a.Round, h.m.Type)
}
