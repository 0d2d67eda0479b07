package report

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// jsonEncoder writes one indented JSON document holding every result.
// Structs (not maps) keep the key order stable; unknown figures are null.
type jsonEncoder struct{}

type jsonDocument struct {
	SchemaVersion int            `json:"schema_version"`
	Kind          string         `json:"kind"`
	Tool          Tool           `json:"tool"`
	Host          Host           `json:"host"`
	Device        *Device        `json:"device,omitempty"`
	Label         string         `json:"label,omitempty"`
	Repeat        int            `json:"repeat"`
	StartedAt     time.Time      `json:"started_at"`
	Args          []string       `json:"args"`
	Results       []jsonResult   `json:"results"`
	LoadCurves    []CurveVerdict `json:"load_curves,omitempty"`
}

type jsonLatency struct {
	Min    float64 `json:"min"`
	P50    float64 `json:"p50"`
	P90    float64 `json:"p90"`
	P99    float64 `json:"p99"`
	P99_9  float64 `json:"p99_9"`
	P99_99 float64 `json:"p99_99"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
	Stdev  float64 `json:"stdev"`
}

type jsonSides struct {
	Local  *float64 `json:"local"`
	Remote *float64 `json:"remote"`
	// Total is both sides together (local alone in one process).
	Total *float64 `json:"total"`
}

type jsonResult struct {
	Workload   string `json:"workload"`
	Transport  string `json:"transport"`
	Completion string `json:"completion"`
	Kind       Kind   `json:"kind"`
	Status     string `json:"status"`
	Reason     string `json:"reason,omitempty"`
	SizeBytes  int    `json:"size_bytes"`
	Iterations int    `json:"iterations"`
	// LatencyUS is in microseconds; omitted when there is no latency data.
	LatencyUS *jsonLatency `json:"latency_us,omitempty"`
	// LatencyExact is true for raw-sample statistics, false for histogram
	// ones; omitted with LatencyUS.
	LatencyExact *bool     `json:"latency_exact,omitempty"`
	Samples      int64     `json:"samples"`
	OutOfRange   int64     `json:"out_of_range"`
	Bytes        uint64    `json:"bytes"`
	Ops          uint64    `json:"ops"`
	ElapsedNS    int64     `json:"elapsed_ns"`
	BwGbps       *float64  `json:"bw_gbps"`
	BwPeakGbps   *float64  `json:"bw_peak_gbps"`
	BwMiBps      *float64  `json:"bw_mibps"`
	MsgRateMpps  *float64  `json:"msg_rate_mpps"`
	Received     uint64    `json:"received"`
	CPU          CPUPair   `json:"cpu"`
	CPUUSPerOp   jsonSides `json:"cpu_us_per_op"`
	CPUSPerGB    jsonSides `json:"cpu_s_per_gb"`
	// Validation is "passed" or "failed ..." when --validate ran.
	Validation    string  `json:"validation,omitempty"`
	Clock         string  `json:"clock"`
	ClockSampleNS float64 `json:"clock_sample_ns"`
	Peer          *Peer   `json:"peer,omitempty"`
	// Clean is the counters' verdict: false when a retransmission or
	// error counter moved; absent when no counter was read.
	Clean    *bool        `json:"clean,omitempty"`
	Counters *NICCounters `json:"counters,omitempty"`
	// OpenLoop is an open-loop run's schedule, service time and lag.
	OpenLoop *jsonOpenLoop `json:"open_loop,omitempty"`
	Params   Params        `json:"params"`
	Server   *jsonResult   `json:"server,omitempty"`
	// Histogram is the latency histogram in ns, HdrHistogram's V2
	// compressed encoding in base64.
	Histogram string    `json:"histogram,omitempty"`
	Runs      []jsonRun `json:"runs,omitempty"`
}

// jsonOpenLoop is what an open loop measured beside its headline latency
// (which runs from each operation's due time).
type jsonOpenLoop struct {
	RateOPS     int          `json:"rate_ops"`
	AchievedOPS *float64     `json:"achieved_ops"`
	Issued      uint64       `json:"issued"`
	Behind      uint64       `json:"behind"`
	ServiceUS   *jsonLatency `json:"service_us"`
	LagUS       *jsonLatency `json:"lag_us"`
	// The histograms in ns, encoded like the headline's.
	ServiceHistogram string `json:"service_histogram,omitempty"`
	LagHistogram     string `json:"lag_histogram,omitempty"`
}

// CurveVerdict is a latency-against-load curve's verdict as the JSON
// document holds it (load_curves[]); readers of saved documents use it too.
type CurveVerdict struct {
	Workload  string `json:"workload"`
	SizeBytes int    `json:"size_bytes"`
	// RatesOPS are the offered rates, ascending; KneeOPS the first one
	// past the knee, null when there is none.
	RatesOPS []int  `json:"rates_ops"`
	KneeOPS  *int   `json:"knee_ops"`
	Summary  string `json:"summary"`
}

// jsonRun is one repetition of a point: the figures a comparison reads.
type jsonRun struct {
	Run         int          `json:"run"`
	StartedAt   *time.Time   `json:"started_at,omitempty"`
	Status      string       `json:"status"`
	Reason      string       `json:"reason,omitempty"`
	Clean       *bool        `json:"clean,omitempty"`
	Ops         uint64       `json:"ops"`
	Bytes       uint64       `json:"bytes"`
	ElapsedNS   int64        `json:"elapsed_ns"`
	LatencyUS   *jsonLatency `json:"latency_us,omitempty"`
	Histogram   string       `json:"histogram,omitempty"`
	BwGbps      *float64     `json:"bw_gbps"`
	BwMiBps     *float64     `json:"bw_mibps"`
	MsgRateMpps *float64     `json:"msg_rate_mpps"`
	CPUUSPerOp  jsonSides    `json:"cpu_us_per_op"`
	CPUSPerGB   jsonSides    `json:"cpu_s_per_gb"`
}

// Encode implements [Encoder].
func (jsonEncoder) Encode(w io.Writer, doc *Document) error {
	if doc == nil {
		return errNilDocument
	}
	jd := jsonDocument{
		SchemaVersion: SchemaVersion,
		Kind:          DocumentKind,
		Tool:          doc.Tool,
		Host:          doc.Host,
		Device:        doc.Device,
		Label:         doc.Label,
		Repeat:        max(doc.Repeat, 1),
		StartedAt:     doc.StartedAt,
		Args:          doc.Args,
		Results:       []jsonResult{},
	}
	if jd.Args == nil {
		jd.Args = []string{}
	}
	for _, r := range validResults(doc) {
		jr := toJSONResult(r)
		if r.Server != nil {
			srv := *r.Server
			srv.Server, srv.Runs = nil, nil // one level: the server's own figures
			s := toJSONResult(&srv)
			jr.Server = &s
		}
		var err error
		if jr.Histogram, err = encodeHistogram(r); err != nil {
			return err
		}
		if jr.Runs, err = toJSONRuns(r); err != nil {
			return err
		}
		if jr.OpenLoop, err = toJSONOpenLoop(r); err != nil {
			return err
		}
		jd.Results = append(jd.Results, jr)
	}
	for _, c := range LoadCurves(validResults(doc)) {
		jc := CurveVerdict{Workload: c.Workload, SizeBytes: c.SizeBytes, Summary: c.Summary()}
		for _, p := range c.Points {
			jc.RatesOPS = append(jc.RatesOPS, p.Open.RateOPS)
		}
		if c.Knee >= 0 {
			jc.KneeOPS = &jc.RatesOPS[c.Knee]
		}
		jd.LoadCurves = append(jd.LoadCurves, jc)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(jd); err != nil {
		return fmt.Errorf("encode json: %w", err)
	}
	return nil
}

func toJSONResult(r *Result) jsonResult {
	s := Summarize(r)
	jr := jsonResult{
		Workload:   r.Workload,
		Transport:  r.Transport,
		Completion: r.Completion,
		Kind:       r.Kind,
		Status:     r.Status,
		Reason:     r.Reason,
		SizeBytes:  r.SizeBytes,
		Iterations: r.Iterations,
		OutOfRange: r.OutOfRange,
		Bytes:      r.Bytes,
		Ops:        r.Ops,
		ElapsedNS:  r.ElapsedNS,
		Received:   r.Received,
		Validation: r.Validation,
		Clock:      r.Clock,
		Peer:       r.Peer,
		Counters:   r.Counters,
		Params:     r.Params,
	}
	if r.Counters != nil {
		jr.Clean = r.Counters.Clean
	}
	jr.ClockSampleNS = r.ClockSampleNS
	if l := s.Latency; l != nil {
		jr.LatencyUS = toJSONLatency(l)
		jr.LatencyExact = &l.Exact
		jr.Samples = l.Count
	}
	if b := s.Bandwidth; b != nil {
		jr.BwGbps, jr.BwMiBps, jr.MsgRateMpps = &b.BwGbps, &b.BwMiBps, &b.MsgRateMpps
	}
	if peak := knownPositive(r.PeakBandwidthGbps); peak > 0 {
		jr.BwPeakGbps = &peak
	}
	jr.CPU = CPUPair{Local: usageOf(s.CPULocal), Remote: usageOf(s.CPURemote), OneProcess: r.CPU.OneProcess}
	jr.CPUUSPerOp = jsonSides{Local: perOp(s.CPULocal), Remote: perOp(s.CPURemote), Total: perOp(s.CPUTotal)}
	jr.CPUSPerGB = jsonSides{Local: perGBValue(s.CPULocal), Remote: perGBValue(s.CPURemote), Total: perGBValue(s.CPUTotal)}
	return jr
}

func toJSONLatency(l *LatencyStats) *jsonLatency {
	if l == nil {
		return nil
	}
	return &jsonLatency{
		Min: l.MinUS(), P50: l.P50US(), P90: l.P90US(), P99: l.P99US(),
		P99_9: l.P99_9US(), P99_99: l.P99_99US(), Max: l.MaxUS(),
		Mean: l.MeanUS(), Stdev: l.StdevUS(),
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

// toJSONRuns lists r's runs: r itself when it was measured once.
func toJSONRuns(r *Result) ([]jsonRun, error) {
	runs := r.Runs
	if len(runs) == 0 {
		runs = []*Result{r}
	}
	out := make([]jsonRun, 0, len(runs))
	for i, run := range runs {
		full := toJSONResult(run)
		jr := jsonRun{Run: i + 1, Status: run.Status, Reason: run.Reason, Clean: full.Clean, Ops: run.Ops, Bytes: run.Bytes,
			ElapsedNS: run.ElapsedNS, LatencyUS: full.LatencyUS, BwGbps: full.BwGbps, BwMiBps: full.BwMiBps,
			MsgRateMpps: full.MsgRateMpps, CPUUSPerOp: full.CPUUSPerOp, CPUSPerGB: full.CPUSPerGB}
		if !run.StartedAt.IsZero() {
			t := run.StartedAt
			jr.StartedAt = &t
		}
		var err error
		if jr.Histogram, err = encodeHistogram(run); err != nil {
			return nil, err
		}
		out = append(out, jr)
	}
	return out, nil
}

func toJSONOpenLoop(r *Result) (*jsonOpenLoop, error) {
	o := r.Open
	if o == nil {
		return nil, nil
	}
	jo := &jsonOpenLoop{RateOPS: o.RateOPS, Issued: o.Issued, Behind: o.Behind,
		ServiceUS: toJSONLatency(o.Service.Stats()), LagUS: toJSONLatency(o.Lag.Stats())}
	if a, ok := r.AchievedOPS(); ok {
		jo.AchievedOPS = &a
	}
	var err error
	if jo.ServiceHistogram, err = encodeHist(o.Service.h(), r, "service"); err != nil {
		return nil, err
	}
	if jo.LagHistogram, err = encodeHist(o.Lag.h(), r, "lag"); err != nil {
		return nil, err
	}
	return jo, nil
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
