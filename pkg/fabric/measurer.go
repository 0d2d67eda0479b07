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
	if a.Peer < 0 || a.Peer >= len(members) {
		d.Error = fmt.Sprintf("assignment names peer %d, outside 0..%d", a.Peer, len(members)-1)
		return d
	}
	peer := members[a.Peer]
	ctx, cancel := context.WithTimeout(ctx, pairTimeout)
	defer cancel()
	start := time.Now()
	var err error
	switch a.Role {
	case roleServe:
		err = m.Serve(ctx, peer)
	case roleMeasure:
		var res PairResult
		if res, err = m.Measure(ctx, peer); err == nil {
			err = encodeResult(d, res)
		}
	default:
		err = fmt.Errorf("assignment with role %q, want %s, %s or %s", a.Role, roleIdle, roleServe, roleMeasure)
	}
	d.ElapsedNS = time.Since(start).Nanoseconds()
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			err = fmt.Errorf("%w (the pair's time, %s, is up)", err, fmtDuration(pairTimeout))
		}
		d.Error = err.Error()
		d.Figures, d.Result = nil, nil
	}
	return d
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
