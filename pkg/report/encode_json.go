package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// jsonEncoder writes the saved document (pkg/document's layout) holding
// every result.
type jsonEncoder struct{}

// Encode implements [Encoder].
func (jsonEncoder) Encode(w io.Writer, doc *Document) error {
	d, err := ToDocument(doc)
	if err != nil {
		return err
	}
	return document.Encode(w, d)
}

// ndjsonEncoder writes the last line of a streamed document (-o ndjson):
// the whole document in a record of its own. The lines before it are
// written as the run goes (pkg/bench).
type ndjsonEncoder struct{}

// Encode implements [Encoder].
func (ndjsonEncoder) Encode(w io.Writer, doc *Document) error {
	d, err := ToDocument(doc)
	if err != nil {
		return err
	}
	return document.EncodeRecord(w, document.StreamDocument{Type: document.RecordDocument, Document: document.Stamped(d)})
}

// ResultRecord is one run's result as a streamed document's point record
// holds it: the document's form of a point measured once.
func ResultRecord(r *Result) (*document.Result, error) {
	d, err := ToDocument(&Document{Results: []*Result{r}})
	if err != nil {
		return nil, err
	}
	if len(d.Results) == 0 {
		return nil, errors.New("stream: a nil result")
	}
	return d.Results[0], nil
}

// ToDocument converts a measurement into the saved document: the one
// place where pkg/report's results become pkg/document's figures.
func ToDocument(doc *Document) (*document.Document, error) {
	if doc == nil {
		return nil, errNilDocument
	}
	d := &document.Document{
		Tool:      doc.Tool,
		Host:      doc.Host,
		Device:    doc.Device,
		Label:     doc.Label,
		Repeat:    max(doc.Repeat, 1),
		StartedAt: doc.StartedAt,
		Args:      doc.Args,
		Results:   []*document.Result{},
	}
	for _, r := range validResults(doc) {
		dr, err := toResult(r)
		if err != nil {
			return nil, err
		}
		if dr.Runs, err = toRuns(r, dr.Figures); err != nil {
			return nil, err
		}
		if r.Server != nil {
			// One level: the server's own figures, without runs.
			if dr.Server, err = toResult(r.Server); err != nil {
				return nil, err
			}
		}
		d.Results = append(d.Results, dr)
	}
	for _, c := range LoadCurves(validResults(doc)) {
		dc := &document.LoadCurve{Workload: c.Workload, SizeBytes: c.SizeBytes, Summary: c.Summary()}
		for _, p := range c.Points {
			dc.RatesOPS = append(dc.RatesOPS, p.Open.RateOPS)
		}
		if c.Knee >= 0 {
			dc.KneeOPS = &dc.RatesOPS[c.Knee]
		}
		d.LoadCurves = append(d.LoadCurves, dc)
	}
	for _, c := range LoadedCurves(validResults(doc)) {
		dc := &document.LoadedCurve{Workload: c.Workload, SizeBytes: c.SizeBytes, RateOPS: c.RateOPS, Levels: c.Levels(), Summary: c.Summary()}
		if k, ok := c.KneeLoaders(); ok {
			dc.KneeLoaders = &k
		}
		d.LoadedCurves = append(d.LoadedCurves, dc)
	}
	return d, nil
}

// toResult is r as the document holds it, without its runs or server.
func toResult(r *Result) (*document.Result, error) {
	params, err := toParams(r)
	if err != nil {
		return nil, err
	}
	s := Summarize(r)
	dr := &document.Result{
		Workload:      r.Workload,
		Transport:     r.Transport,
		Completion:    r.Completion,
		Kind:          r.Kind.String(),
		SizeBytes:     r.SizeBytes,
		Iterations:    r.Iterations,
		OutOfRange:    r.OutOfRange,
		Received:      r.Received,
		Validation:    r.Validation,
		Clock:         r.Clock,
		ClockSampleNS: r.ClockSampleNS,
		Peer:          r.Peer,
		Counters:      r.Counters,
		Expectations:  r.Expectations,
		Params:        params,
		CPU:           CPUPair{Local: usageOf(s.CPULocal), Remote: usageOf(s.CPURemote), OneProcess: r.CPU.OneProcess},
	}
	if dr.Figures, err = toFigures(r, s); err != nil {
		return nil, err
	}
	if l := s.Latency; l != nil {
		dr.LatencyExact = &l.Exact
	}
	if peak := knownPositive(r.PeakBandwidthGbps); peak > 0 {
		dr.BwPeakGbps = &peak
	}
	if dr.OpenLoop, err = toOpenLoop(r); err != nil {
		return nil, err
	}
	dr.Loaded = toLoaded(r)
	return dr, nil
}

// toRuns are r's runs as the document holds them; a result measured once
// is its one run, whose figures (own, given) are not computed again.
func toRuns(r *Result, own document.Figures) ([]*document.Run, error) {
	if len(r.Runs) == 0 {
		return []*document.Run{{Run: 1, StartedAt: r.StartedAt, Figures: own}}, nil
	}
	runs := make([]*document.Run, 0, len(r.Runs))
	for i, run := range r.Runs {
		f, err := toFigures(run, Summarize(run))
		if err != nil {
			return nil, err
		}
		runs = append(runs, &document.Run{Run: i + 1, StartedAt: run.StartedAt, Figures: f})
	}
	return runs, nil
}

// toFigures is what r measured: the figures a result and each run hold.
func toFigures(r *Result, s Summary) (document.Figures, error) {
	f := document.Figures{Status: r.Status, Reason: r.Reason, Ops: r.Ops, Bytes: r.Bytes, ElapsedNS: r.ElapsedNS,
		CPUUSPerOp: document.Costs{Local: perOp(s.CPULocal), Remote: perOp(s.CPURemote), Total: perOp(s.CPUTotal)},
		CPUSPerGB:  document.Costs{Local: perGBValue(s.CPULocal), Remote: perGBValue(s.CPURemote), Total: perGBValue(s.CPUTotal)},
	}
	if r.Counters != nil {
		f.Clean = r.Counters.Clean
	}
	if l := s.Latency; l != nil {
		f.LatencyUS = toLatency(l)
		f.Samples = l.Count
	}
	if b := s.Bandwidth; b != nil {
		f.BwGbps, f.BwMiBps, f.MsgRateMpps = &b.BwGbps, &b.BwMiBps, &b.MsgRateMpps
	}
	var err error
	f.Histogram, err = encodeHistogram(r)
	return f, err
}

// toParams is r's parameters as the document's params object.
func toParams(r *Result) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(r.Params)
	if err != nil {
		return nil, fmt.Errorf("encode json: params of %s %d bytes: %w", r.Workload, r.SizeBytes, err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("encode json: params of %s %d bytes: %w", r.Workload, r.SizeBytes, err)
	}
	return m, nil
}

func toLatency(l *LatencyStats) *document.Latency {
	if l == nil {
		return nil
	}
	v := func(x float64) *float64 { return &x }
	return &document.Latency{
		Min: v(l.MinUS()), P50: v(l.P50US()), P90: v(l.P90US()), P99: v(l.P99US()),
		P99_9: v(l.P99_9US()), P99_99: v(l.P99_99US()), Max: v(l.MaxUS()),
		Mean: v(l.MeanUS()), Stdev: v(l.StdevUS()),
	}
}

func usageOf(c *CPUCost) *CPUUsage {
	if c == nil {
		return nil
	}
	u := c.Usage
	return &u
}

func perOp(c *CPUCost) *float64 {
	if c == nil || !c.HasPerOp {
		return nil
	}
	v := c.MicrosPerOp
	return &v
}

func perGBValue(c *CPUCost) *float64 {
	if c == nil || !c.HasPerGB {
		return nil
	}
	v := c.SecondsPerGB
	return &v
}

func toOpenLoop(r *Result) (*document.OpenLoop, error) {
	o := r.Open
	if o == nil {
		return nil, nil
	}
	do := &document.OpenLoop{RateOPS: o.RateOPS, Issued: o.Issued, Behind: o.Behind,
		ServiceUS: toLatency(o.Service.Stats()), LagUS: toLatency(o.Lag.Stats())}
	if a, ok := r.AchievedOPS(); ok {
		do.AchievedOPS = &a
	}
	var err error
	if do.ServiceHistogram, err = encodeHist(o.Service.h(), r, "service"); err != nil {
		return nil, err
	}
	if do.LagHistogram, err = encodeHist(o.Lag.h(), r, "lag"); err != nil {
		return nil, err
	}
	return do, nil
}

// encodeHistogram is r's latency histogram in HdrHistogram's V2
// compressed base64 encoding; "" when r has no latency data.
func encodeHistogram(r *Result) (string, error) {
	h, _, _ := latencyHistogram(r)
	return encodeHist(h, r, "latency")
}

// encodeHist is h in HdrHistogram's V2 compressed base64 encoding; "" when
// empty. what names it in an error.
func encodeHist(h *hdrhistogram.Histogram, r *Result, what string) (string, error) {
	if h == nil || h.TotalCount() == 0 {
		return "", nil
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode json: %s histogram of %s %d bytes: %w", what, r.Workload, r.SizeBytes, err)
	}
	return string(b), nil
}

// toLoaded is r's loader figures as the document holds them.
func toLoaded(r *Result) *document.Loaded {
	l := r.Loaded
	if l == nil || l.Loaders == 0 {
		return nil
	}
	dl := &document.Loaded{Loaders: l.Loaders, Workload: l.Workload, Ops: l.Ops, ElapsedS: float64(l.ElapsedNS) / 1e9}
	if l.ElapsedNS > 0 {
		bw := l.Gbps(r.SizeBytes)
		dl.BwGbps = &bw
	}
	return dl
}
