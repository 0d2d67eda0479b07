package fabric

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// Measurer measures one pair; the sweep calls it on both hosts of a pair
// at the same time. Both methods must return when ctx is done (the pair's
// time is up or the sweep is stopped).
type Measurer interface {
	// Serve is the pair's Dst side: serve peer (the Src) for one
	// measurement on the listener registered as this rank's Member.Addr,
	// and return when peer is done.
	Serve(ctx context.Context, peer Member) error
	// Measure is the pair's Src side: measure against peer (the Dst),
	// which serves at peer.Addr, and return the pair's result.
	Measure(ctx context.Context, peer Member) (PairResult, error)
}

// ConcurrentServer is a Measurer that can serve several pairs at once,
// as an incast round's receiver does; the sweep refuses such a round's
// pairs with a Measurer that is not one.
type ConcurrentServer interface {
	// ServeEach serves peers[i] on the rank's listener i (see
	// Member.ListenerAddr), all at once, and returns when every one is
	// done: errs[i] is peers[i]'s error, nil when served.
	ServeEach(ctx context.Context, peers []Member) (errs []error)
}

// PairResult is one pair's measurement.
type PairResult struct {
	// Data is the full result, encoded to JSON into the document (the
	// report documents of each workload, for instance); nil for none.
	Data any
	// Figures are the headline figures by metric name, whose suffix
	// says the unit and the direction: "write_lat.p50_us" (lower is
	// better), "write_bw.bw_gbps" (higher is better). See
	// MetricDirection.
	Figures map[string]float64
}

// perform runs this rank's part of a round and reports it.
func perform(ctx context.Context, m Measurer, members []Member, a *assignMsg, pairTimeout time.Duration) *doneMsg {
	d := &doneMsg{Round: a.Round}
	if a.Role == roleIdle {
		return d
	}
	for _, p := range append([]int{a.Peer}, a.Peers...) {
		if p < 0 || p >= len(members) {
			d.Error = fmt.Sprintf("assignment names peer %d, outside 0..%d", p, len(members)-1)
			return d
		}
	}
	peer := members[a.Peer]
	ctx, cancel := context.WithTimeout(ctx, pairTimeout)
	defer cancel()
	start := time.Now()
	var err error
	switch {
	case a.Role == roleServe && len(a.Peers) > 0:
		serveEach(ctx, m, members, a.Peers, d, pairTimeout)
	case a.Role == roleServe:
		err = m.Serve(ctx, peer)
	case a.Role == roleMeasure:
		addr, ok := peer.ListenerAddr(a.Listener)
		if !ok {
			err = fmt.Errorf("assignment names listener %d of %s, which registered %d", a.Listener, peer, max(len(peer.Listeners), 1))
			break
		}
		peer.Addr = addr
		var res PairResult
		if res, err = m.Measure(ctx, peer); err == nil {
			err = encodeResult(d, res)
		}
	default:
		err = fmt.Errorf("assignment with role %q, want %s, %s or %s", a.Role, roleIdle, roleServe, roleMeasure)
	}
	d.ElapsedNS = time.Since(start).Nanoseconds()
	if err != nil {
		d.Error = timeUp(ctx, err, pairTimeout).Error()
		d.Figures, d.Result = nil, nil
	}
	return d
}

// serveEach serves peers at once on this rank's listeners and puts the
// errors of those that failed in d.PeerErrors, by rank; a Measurer that
// cannot serve several pairs fails them all.
func serveEach(ctx context.Context, m Measurer, members []Member, peers []int, d *doneMsg, pairTimeout time.Duration) {
	ps := make([]Member, len(peers))
	for i, p := range peers {
		ps[i] = members[p]
	}
	errs := make([]error, len(ps))
	if cs, ok := m.(ConcurrentServer); ok {
		errs = cs.ServeEach(ctx, ps)
	} else {
		for i := range errs {
			errs[i] = errors.New("this rank's measurer cannot serve several pairs at once")
		}
	}
	for i, err := range errs {
		if i >= len(peers) || err == nil {
			continue
		}
		if d.PeerErrors == nil {
			d.PeerErrors = map[int]string{}
		}
		d.PeerErrors[peers[i]] = timeUp(ctx, err, pairTimeout).Error()
	}
}

// timeUp says in err that the pair's time is up, when it is.
func timeUp(ctx context.Context, err error, pairTimeout time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		return fmt.Errorf("%w (the pair's time, %s, is up)", err, fmtDuration(pairTimeout))
	}
	return err
}

// errAbandoned is why a server stopped when rank 0 said its pair's
// measuring side had failed (msgAbandon).
var errAbandoned = errors.New("stopped serving: the measuring side had failed")

// abandoned says, in a stopped server's report, why it stopped; a server
// that was done without an error keeps its report.
func abandoned(d *doneMsg) {
	if d.Error != "" {
		d.Error = errAbandoned.Error()
	}
}

// encodeResult puts res into d, refusing figures JSON cannot carry.
func encodeResult(d *doneMsg, res PairResult) error {
	for k, v := range res.Figures {
		if k == "" {
			return errors.New("result has a figure without a metric name")
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("figure %s is %v: want a finite number", k, v)
		}
	}
	d.Figures = res.Figures
	if res.Data != nil {
		b, err := json.Marshal(res.Data)
		if err != nil {
			return fmt.Errorf("encode the pair's result: %w", err)
		}
		d.Result = b
	}
	return nil
}
