//go:build cgo

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

// pairMeasurer measures a pair on the workloads' harness: the pair's Dst
// serves the Src's points as one announced sweep on its measurement
// listener, with a one-shot server; the Src runs each point against it.
type pairMeasurer struct {
	specs       []workloads.Spec // resolved, one per workload, in order
	local       workloads.Local
	device      *report.Device // nil when every workload is TCP
	ln          *exchange.Listener
	figuresOnly bool // the pair's Data stays nil
}

// Serve serves peer's points, all the workloads of the pair, and returns
// when the last is done (or failed, or ctx ended).
func (m *pairMeasurer) Serve(ctx context.Context, peer fabric.Member) error {
	sv := &workloads.Server{Local: m.local}
	if err := sv.Serve(ctx, m.ln); err != nil {
		return fmt.Errorf("serving %s: %w", peer, err)
	}
	return nil
}

// Measure runs every workload against peer's listener, announcing the
// next one to its one-shot server, and returns the pair's report document
// (the schema of `rdma-bench run -o json`) with the headline figures. A
// point that fails ends the pair; a point measured with too little data
// fails it once the others have run (its server awaits them).
func (m *pairMeasurer) Measure(ctx context.Context, peer fabric.Member) (fabric.PairResult, error) {
	host, portStr, err := net.SplitHostPort(peer.Addr)
	if err != nil {
		return fabric.PairResult{}, fmt.Errorf("%s registered address %q: want HOST:PORT", peer, peer.Addr)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return fabric.PairResult{}, fmt.Errorf("%s registered address %q: want a numeric port", peer, peer.Addr)
	}
	doc := newDocument()
	doc.Device = m.device
	figures := map[string]float64{}
	var thin []string
	for i, sp := range m.specs {
		started := time.Now().UTC()
		res, err := workloads.RunClient(ctx, sp, m.local, host, port, i < len(m.specs)-1)
		if err != nil {
			return fabric.PairResult{}, fmt.Errorf("%s %d bytes against %s: %w", sp.Workload, sp.Size, peer, err)
		}
		res.StartedAt = started
		doc.Results = append(doc.Results, res)
		if res.Status != report.StatusOK {
			thin = append(thin, fmt.Sprintf("%s %d bytes: %s: %s", sp.Workload, sp.Size, res.Status, res.Reason))
			continue
		}
		headlineFigures(figures, sp.Workload, res)
	}
	if len(thin) > 0 {
		return fabric.PairResult{}, fmt.Errorf("against %s: %s", peer, strings.Join(thin, "; "))
	}
	out := fabric.PairResult{Figures: figures}
	if !m.figuresOnly {
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

// metricInfo describes a headline figure: the part of its name after the
// workload, what it is, and its unit.
type metricInfo struct {
	suffix, what, unit string
}

// Headline figures: "write_lat.p50_us" and so on. The unit suffix gives
// the outliers' direction (fabric.MetricDirection).
var (
	latencyMetrics = []metricInfo{
		{"p50_us", "p50 latency", "µs"},
		{"p99_us", "p99 latency", "µs"},
	}
	bandwidthMetrics = []metricInfo{
		{"bw_gbps", "bandwidth", "Gb/s"},
		{"msg_rate_mpps", "message rate", "Mpps"},
	}
)

// headlineFigures adds res's figures under workload's metric names.
func headlineFigures(figs map[string]float64, workload string, res *report.Result) {
	s := report.Summarize(res)
	switch {
	case res.Kind == report.Latency && s.Latency != nil:
		figs[workload+"."+latencyMetrics[0].suffix] = s.Latency.P50US()
		figs[workload+"."+latencyMetrics[1].suffix] = s.Latency.P99US()
	case res.Kind == report.Bandwidth && s.Bandwidth != nil:
		figs[workload+"."+bandwidthMetrics[0].suffix] = s.Bandwidth.BwGbps
		figs[workload+"."+bandwidthMetrics[1].suffix] = s.Bandwidth.MsgRateMpps
	}
}

// matrixMetric is the metric rank 0 prints a matrix of, and checks for
// outliers, for a workload: p50 latency, or bandwidth.
func matrixMetric(workload string) string {
	w, _ := workloads.Lookup(workload)
	if w.Latency() {
		return workload + "." + latencyMetrics[0].suffix
	}
	return workload + "." + bandwidthMetrics[0].suffix
}

// matrixMetrics are the workloads' matrix metrics, in order.
func (f *fabricFlags) matrixMetrics() []string {
	metrics := make([]string, len(f.names))
	for i, n := range f.names {
		metrics[i] = matrixMetric(n)
	}
	return metrics
}

// describeMetric says what a metric is ("write_lat p50 latency") and its
// unit ("µs"); the name itself for one this command does not make.
func describeMetric(metric string) (what, unit string) {
	workload, suffix, _ := strings.Cut(metric, ".")
	for _, m := range slices.Concat(latencyMetrics, bandwidthMetrics) {
		if m.suffix == suffix {
			return workload + " " + m.what, m.unit
		}
	}
	return metric, ""
}
