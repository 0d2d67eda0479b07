//go:build cgo

package measure

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

// PairMeasurer measures a pair on the workloads' harness: the pair's Dst
// serves the Src's points as one announced sweep on its measurement
// listener, with a one-shot server; the Src runs each point against it.
type PairMeasurer struct {
	Specs  []point.Resolved // one per workload, in order
	Local  workloads.Local
	Device *report.Device // nil when every workload is TCP
	// Listeners are the rank's measurement listeners, its Member.Addr's
	// first: one, or one per pair an incast receiver serves at once.
	Listeners []*exchange.Listener
	// FiguresOnly leaves the pair's Data nil.
	FiguresOnly bool
	// NewDocument starts a pair's report document (tool, host, time).
	NewDocument func() *report.Document
}

// Serve serves peer's points, all the workloads of the pair, and returns
// when the last is done (or failed, or ctx ended).
func (m *PairMeasurer) Serve(ctx context.Context, peer fabric.Member) error {
	return serve(ctx, m.Local, m.Listeners[0], peer)
}

// ServeEach serves peers[i] on listener i, all at once, each with its own
// one-shot server (one run at a time each, as Serve) and a 1/k share of
// this side's memory bound (workloads.Local.Share), so that the k runs
// together stay within it.
func (m *PairMeasurer) ServeEach(ctx context.Context, peers []fabric.Member) []error {
	errs := make([]error, len(peers))
	if len(peers) > len(m.Listeners) {
		for i := range errs {
			errs[i] = fmt.Errorf("%d pairs to serve at once on %d listeners", len(peers), len(m.Listeners))
		}
		return errs
	}
	local := m.Local.Share(len(peers))
	var wg sync.WaitGroup
	for i, peer := range peers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = serve(ctx, local, m.Listeners[i], peer)
		}()
	}
	wg.Wait()
	return errs
}

// serve serves peer's points on ln with a one-shot server.
func serve(ctx context.Context, local workloads.Local, ln *exchange.Listener, peer fabric.Member) error {
	sv := &workloads.Server{Local: local}
	if err := sv.Serve(ctx, ln); err != nil {
		return fmt.Errorf("serving %s: %w", peer, err)
	}
	return nil
}

// Measure runs every workload against peer's listener, announcing the
// next one to its one-shot server, and returns the pair's report document
// (the schema of `rdma-bench run -o json`) with the headline figures. A
// point that fails ends the pair; a point measured with too little data
// fails it once the others have run (its server awaits them).
func (m *PairMeasurer) Measure(ctx context.Context, peer fabric.Member) (fabric.PairResult, error) {
	host, portStr, err := net.SplitHostPort(peer.Addr)
	if err != nil {
		return fabric.PairResult{}, fmt.Errorf("%s registered address %q: want HOST:PORT", peer, peer.Addr)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return fabric.PairResult{}, fmt.Errorf("%s registered address %q: want a numeric port", peer, peer.Addr)
	}
	doc := m.NewDocument()
	doc.Device = m.Device
	figures := map[string]float64{}
	var thin []string
	for i, sp := range m.Specs {
		started := time.Now().UTC()
		res, err := workloads.RunClient(ctx, sp, m.Local, host, port, i < len(m.Specs)-1)
		if err != nil {
			return fabric.PairResult{}, fmt.Errorf("%s %d bytes against %s: %w", sp.Workload, sp.Size, peer, err)
		}
		res.StartedAt = started
		doc.Results = append(doc.Results, res)
		if res.Status != report.StatusOK {
			thin = append(thin, fmt.Sprintf("%s %d bytes: %s: %s", sp.Workload, sp.Size, res.Status, res.Reason))
			continue
		}
		HeadlineFigures(figures, sp.Workload, res)
	}
	if len(thin) > 0 {
		return fabric.PairResult{}, fmt.Errorf("against %s: %s", peer, strings.Join(thin, "; "))
	}
	out := fabric.PairResult{Figures: figures}
	if !m.FiguresOnly {
		if out.Data, err = encodePairDocument(doc); err != nil {
			return fabric.PairResult{}, err
		}
	}
	return out, nil
}

// encodePairDocument is doc in the JSON schema of run's documents,
// compacted.
func encodePairDocument(doc *report.Document) (json.RawMessage, error) {
	enc, err := report.NewEncoder("json")
	if err != nil {
		return nil, err
	}
	var b, c bytes.Buffer
	if err := enc.Encode(&b, doc); err != nil {
		return nil, fmt.Errorf("encode the pair's results: %w", err)
	}
	if err := json.Compact(&c, b.Bytes()); err != nil {
		return nil, fmt.Errorf("encode the pair's results: %w", err)
	}
	return c.Bytes(), nil
}

// HeadlineFigures adds res's figures to figs under workload's metric
// names ("write_lat.p50_us" and so on: fabric.MetricP50 and the others).
func HeadlineFigures(figs map[string]float64, workload string, res *report.Result) {
	s := report.Summarize(res)
	switch {
	case res.Kind == report.Latency && s.Latency != nil:
		figs[workload+"."+fabric.MetricP50] = s.Latency.P50US()
		figs[workload+"."+fabric.MetricP99] = s.Latency.P99US()
	case res.Kind == report.Bandwidth && s.Bandwidth != nil:
		figs[workload+"."+fabric.MetricBw] = s.Bandwidth.BwGbps
		figs[workload+"."+fabric.MetricMsgRate] = s.Bandwidth.MsgRateMpps
	}
}
