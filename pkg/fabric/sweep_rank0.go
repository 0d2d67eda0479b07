package fabric

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// sweeper is rank 0 running a sweep.
type sweeper struct {
	s      *Session
	cfg    SweepConfig
	doc    *Document
	events chan event
	stop   chan struct{}
	alive  []bool
	why    []string          // why a departed rank's pairs fail
	intern map[string]string // metric names, shared by every pair
}

// event is a message (or a read error) from a rank; rank 0's own reports
// come as events too.
type event struct {
	rank int
	msg  *message
	err  error
}

func (s *Session) sweepRank0(ctx context.Context, cfg SweepConfig) (*Document, error) {
	n := s.World.Size
	sw := &sweeper{s: s, cfg: cfg, events: make(chan event, n), stop: make(chan struct{}),
		alive: make([]bool, n), why: make([]string, n), intern: map[string]string{}}
	defer close(sw.stop)
	for r := range sw.alive {
		sw.alive[r] = true
	}
	var rails []Rail
	if cfg.Rails {
		rails = RailsOf(s.Members)
	}
	count, roundAt, err := scheduleOf(cfg.Pattern, n, rails)
	if err == nil {
		err = errors.Join(cfg.Outliers.check(), cfg.Recheck.check(), checkListeners(s.Members, cfg.Pattern))
	}
	var log *PairLog
	if err == nil {
		log, err = NewPairLog(cfg.PairsDir)
	}
	if err != nil {
		sw.broadcast(&message{Type: msgError, Error: err.Error()})
		return nil, fmt.Errorf("sweep: %w", err)
	}
	plan := planOf(count, roundAt, cfg.PairTimeout, 0) // its counts only
	sw.doc = &Document{
		Envelope: document.Envelope{SchemaVersion: SchemaVersion, Kind: document.KindFabric}, Tool: Tool{Name: document.ToolName, Version: s.cfg.Self.Version}, Launcher: s.World.Launcher,
		World: s.World, Rendezvous: s.Method, Workloads: cfg.Workloads, Params: s.cfg.Self.Params,
		Schedule: ScheduleInfo{Pattern: cfg.Pattern, Rounds: plan.Rounds, Pairs: plan.Pairs, Rails: rails}, Probe: cfg.Probe,
		PairTimeoutNS: cfg.PairTimeout.Nanoseconds(), StartedAt: time.Now(), Members: s.Members,
		log: log,
	}
	start := &message{Type: msgStart, Start: &startMsg{Pattern: cfg.Pattern, Rounds: count,
		PairTimeoutNS: cfg.PairTimeout.Nanoseconds(), GraceNS: cfg.Grace.Nanoseconds(), DropResults: cfg.DropResults}}
	for r := 1; r < n; r++ {
		if err := s.links[r].send(ctx, start, s.cfg.IOTimeout); err != nil {
			sw.depart(r, 0, err.Error())
			continue
		}
		go sw.read(ctx, r)
	}
	for i := range count {
		outs, err := sw.round(ctx, i+1, roundAt(i))
		if err == nil && cfg.Progress != nil {
			writeProgress(cfg.Progress, i+1, count, outs, time.Since(sw.doc.StartedAt))
		}
		if err != nil {
			return sw.abort(ctx, err, fmt.Sprintf("in round %d of %d", i+1, count))
		}
	}
	if err := sw.recheck(ctx, count); err != nil {
		return sw.abort(ctx, err, "re-measuring the suspects")
	}
	sw.broadcast(&message{Type: msgFinish})
	sw.doc.FinishedAt = time.Now()
	sw.doc.Status = StatusComplete
	return sw.doc, nil
}

// checkListeners refuses members with fewer measurement listeners than
// pattern needs (ListenersFor): a rank started with another pattern's
// set-up could not serve an incast round's pairs.
func checkListeners(members []Member, pattern string) error {
	need := ListenersFor(pattern, len(members))
	for _, m := range members {
		if got := max(len(m.Listeners), 1); got < need {
			return fmt.Errorf("%s registered %d measurement listener(s), pattern %s needs %d", m, got, pattern, need)
		}
	}
	return nil
}

// abort ends a sweep that cannot go on: it tells every rank, and returns
// the document so far, marked partial with why and where it stopped, with
// its suspects (whether re-measured or not).
func (sw *sweeper) abort(ctx context.Context, err error, where string) (*Document, error) {
	sw.broadcast(&message{Type: msgError, Error: "rank 0 stopped: " + err.Error()})
	if sw.doc.Suspects == nil && !sw.doc.Probe {
		_ = sw.findSuspects() // the options were checked; a metric without a unit has none
	}
	why := err
	if cause := context.Cause(ctx); cause != nil {
		why = cause // "interrupt signal received", not "context canceled"
	}
	sw.doc.FinishedAt = time.Now()
	sw.doc.Status = StatusPartial
	sw.doc.Reason = fmt.Sprintf("stopped %s: %v; %d of %d scheduled pairs measured or failed", where, why, sw.doc.PairCount(), sw.doc.Schedule.Pairs)
	return sw.doc, fmt.Errorf("sweep stopped %s: %w", where, err)
}

// read passes rank r's messages on as events until its link fails.
func (sw *sweeper) read(ctx context.Context, r int) {
	bound := sw.cfg.PairTimeout + 2*sw.cfg.Grace + sw.s.cfg.IOTimeout
	for {
		m, err := sw.s.links[r].recv(ctx, bound)
		select {
		case sw.events <- event{rank: r, msg: m, err: err}:
		case <-sw.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// round runs one round of the schedule, records its pairs' outcomes in
// the pair log and returns them. It fails when ctx is done, or when the
// log cannot be written (the sweep stops then, its pairs so far kept).
func (sw *sweeper) round(ctx context.Context, num int, pairs Round) ([]PairOutcome, error) {
	outs, err := sw.measure(ctx, num, pairs)
	kept := outs[:0]
	for i := range outs {
		if outs[i].Status == "" { // a pair an interruption cut short is not in the document
			continue
		}
		if lerr := sw.doc.log.Add(&outs[i]); lerr != nil && err == nil {
			err = lerr
		}
		kept = append(kept, outs[i])
	}
	if lerr := sw.doc.log.Flush(); lerr != nil && err == nil {
		err = lerr
	}
	return kept, err
}

// measure runs one round: assign every live rank its part (a rank in no
// pair stays idle), collect every report within PairTimeout+Grace, and
// return the pairs' outcomes in the order given. The sweep's rounds and
// the re-measurements of suspects (recheck.go) both go through it, so a
// pair is always measured the same way. It fails only when ctx is done.
func (sw *sweeper) measure(ctx context.Context, num int, pairs Round) ([]PairOutcome, error) {
	n := len(sw.alive)
	roles := make([]*assignMsg, n)
	outs := make([]PairOutcome, 0, len(pairs))
	var live Round
	for _, p := range pairs {
		o := PairOutcome{Round: num, Src: p.Src, Dst: p.Dst}
		if why := sw.gone(p.Src, p.Dst); why != "" {
			o.Status, o.Error = StatusFailed, "not measured: "+why
		} else {
			live = append(live, p)
		}
		outs = append(outs, o)
	}
	served := live.Served()
	for _, p := range live {
		srcs := served[p.Dst]
		if len(srcs) == 1 {
			roles[p.Src] = &assignMsg{Round: num, Role: roleMeasure, Peer: p.Dst}
			roles[p.Dst] = &assignMsg{Round: num, Role: roleServe, Peer: p.Src}
			continue
		}
		// An incast receiver: its listener i serves srcs[i].
		roles[p.Src] = &assignMsg{Round: num, Role: roleMeasure, Peer: p.Dst, Listener: slices.Index(srcs, p.Src)}
		if roles[p.Dst] == nil {
			roles[p.Dst] = &assignMsg{Round: num, Role: roleServe, Peer: srcs[0], Peers: srcs}
		}
	}
	reports := make([]*doneMsg, n)
	waiting := make([]bool, n)
	pending := 0
	lctx, stopLocal := context.WithCancelCause(ctx) // rank 0's own part
	defer stopLocal(nil)
	for r := range n {
		if !sw.alive[r] {
			continue
		}
		a := roles[r]
		if a == nil {
			a = &assignMsg{Round: num, Role: roleIdle, Peer: -1}
		}
		if r == 0 {
			go sw.local(lctx, a)
		} else if err := sw.s.links[r].send(ctx, &message{Type: msgAssign, Assign: a}, sw.s.cfg.IOTimeout); err != nil {
			if ctx.Err() != nil {
				return outs, ctx.Err()
			}
			sw.depart(r, num, err.Error())
			continue
		}
		waiting[r] = true
		pending++
	}
	limit := sw.cfg.PairTimeout + sw.cfg.Grace
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for pending > 0 {
		select {
		case ev := <-sw.events:
			if ctx.Err() != nil {
				// The sweep is stopping: a read or a part that failed
				// now failed of the stop (the readers share ctx), not of
				// its rank, which must still hear why the sweep ended.
				return outs, ctx.Err()
			}
			r := ev.rank
			switch {
			case !waiting[r]:
				if ev.err != nil && sw.alive[r] && r != 0 {
					sw.depart(r, num, ev.err.Error()) // it reported, then dropped
				}
				continue
			case ev.err != nil:
				sw.depart(r, num, ev.err.Error())
			case ev.msg.Type != msgDone || ev.msg.Done == nil || ev.msg.Done.Round != num:
				if r == 0 {
					continue // a report of rank 0's that came after its round
				}
				sw.depart(r, num, fmt.Sprintf("protocol error: sent %q in round %d", ev.msg.Type, num))
			default:
				reports[r] = ev.msg.Done
				if a := roles[r]; a != nil && a.Role == roleMeasure && ev.msg.Done.Error != "" && waiting[a.Peer] && roles[a.Peer].Peers == nil {
					sw.abandon(ctx, num, a.Peer, stopLocal)
				}
			}
			waiting[r] = false
			pending--
		case <-timer.C:
			for r := range waiting {
				switch {
				case !waiting[r]:
				case r == 0:
					reports[0] = &doneMsg{Round: num, Error: fmt.Sprintf("rank 0's own part did not return within %s", fmtDuration(limit))}
				default:
					sw.depart(r, num, fmt.Sprintf("silent for %s after its assignment", fmtDuration(limit)))
				}
			}
			pending = 0
		case <-ctx.Done():
			return outs, ctx.Err()
		}
	}
	for i := range outs {
		if o := &outs[i]; o.Status == "" {
			sw.resolve(o, reports)
		}
	}
	return outs, nil
}

// abandon tells the serving rank r of round num that its measuring side
// failed (msgAbandon), or stops rank 0's own serving. A send that fails
// is left to the rank's reader, which then reports the link down.
func (sw *sweeper) abandon(ctx context.Context, num, r int, stopLocal context.CancelCauseFunc) {
	if r == 0 {
		stopLocal(errAbandoned)
		return
	}
	_ = sw.s.links[r].send(ctx, &message{Type: msgAbandon, Assign: &assignMsg{Round: num, Role: roleServe}}, sw.s.cfg.IOTimeout)
}

// local runs rank 0's own part of a round.
func (sw *sweeper) local(ctx context.Context, a *assignMsg) {
	d := perform(ctx, sw.cfg.Measurer, sw.s.Members, a, sw.cfg.PairTimeout)
	if context.Cause(ctx) == errAbandoned {
		abandoned(d)
	}
	if sw.cfg.DropResults {
		d.Result = nil
	}
	select {
	case sw.events <- event{rank: 0, msg: &message{Type: msgDone, Done: d}}:
	case <-sw.stop:
	}
}

// resolve records a measured pair's outcome from both sides' reports.
func (sw *sweeper) resolve(o *PairOutcome, reports []*doneMsg) {
	var errs []string
	src, dst := reports[o.Src], reports[o.Dst]
	switch {
	case src == nil:
		errs = append(errs, sw.why[o.Src])
	case src.Error != "":
		errs = append(errs, fmt.Sprintf("measure on %s: %s", sw.s.Members[o.Src], src.Error))
	}
	switch {
	case dst == nil:
		errs = append(errs, sw.why[o.Dst])
	case dst.Error != "":
		errs = append(errs, fmt.Sprintf("serve on %s: %s", sw.s.Members[o.Dst], dst.Error))
	case dst.PeerErrors[o.Src] != "":
		errs = append(errs, fmt.Sprintf("serve on %s: %s", sw.s.Members[o.Dst], dst.PeerErrors[o.Src]))
	}
	if len(errs) > 0 {
		o.Status, o.Error = StatusFailed, strings.Join(errs, "; ")
		return
	}
	o.Status = StatusOK
	o.Figures = figuresOf(src.Figures, sw.intern)
	o.Result = src.Result
	o.ElapsedNS = src.ElapsedNS
}

// gone says why a pair with these ranks cannot be measured, or "".
func (sw *sweeper) gone(ranks ...int) string {
	var whys []string
	for _, r := range ranks {
		if !sw.alive[r] {
			whys = append(whys, sw.why[r])
		}
	}
	return strings.Join(whys, "; ")
}

// depart takes rank r out of the sweep.
func (sw *sweeper) depart(r, round int, reason string) {
	if !sw.alive[r] {
		return
	}
	sw.alive[r] = false
	sw.why[r] = fmt.Sprintf("%s left the sweep in round %d: %s", sw.s.Members[r], round, reason)
	sw.doc.Departed = append(sw.doc.Departed, Departure{Rank: r, Round: round, Reason: reason})
	sw.s.links[r].Close()
}

// broadcast sends m to every live rank, then closes their links.
func (sw *sweeper) broadcast(m *message) {
	for r := 1; r < len(sw.alive); r++ {
		if sw.alive[r] {
			_ = sw.s.links[r].send(context.Background(), m, sw.s.cfg.IOTimeout)
		}
		sw.s.links[r].Close()
	}
}

// writeProgress writes one round's line: "round 3 of 6: 2 pairs, 1
// failed (rank 2 (host-c) left the sweep ...); 4.2s so far". Write errors
// are ignored: progress is a courtesy, never a reason to stop a sweep.
func writeProgress(w io.Writer, num, rounds int, pairs []PairOutcome, elapsed time.Duration) {
	failed, why := 0, ""
	for i := range pairs {
		if !pairs[i].OK() {
			if failed == 0 {
				why = fmt.Sprintf(" (%d->%d: %s)", pairs[i].Src, pairs[i].Dst, pairs[i].Error)
			}
			failed++
		}
	}
	fmt.Fprintf(w, "round %d of %d: %s, %d failed%s; %s so far\n", num, rounds, plural(len(pairs), "pair"), failed, why, elapsed.Round(100*time.Millisecond))
}
