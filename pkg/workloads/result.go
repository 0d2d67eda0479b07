package workloads

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sync"

	"github.com/rdma-bench/rdma-bench/pkg/counters"
	"github.com/rdma-bench/rdma-bench/pkg/engine"
	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// figures are one side's own measurements; the server sends its own to
// the client at the end of a run.
type figures struct {
	CPU        *report.CPUUsage `json:"cpu"`
	Ops        uint64           `json:"ops"`
	Received   uint64           `json:"received"`
	ElapsedNS  int64            `json:"elapsed_ns"`
	PeakGbps   float64          `json:"peak_gbps"`
	Validation string           `json:"validation,omitempty"`
	Host       report.Host      `json:"host"`
	Device     *report.Device   `json:"device,omitempty"`
	// Posted is the operations posted, warm-up included; Counters how
	// the port's counters moved meanwhile (CountersError when not read).
	Posted        uint64           `json:"posted"`
	Counters      *counters.Deltas `json:"counters,omitempty"`
	CountersError string           `json:"counters_error,omitempty"`
}

// ThisHost describes this machine for a report (what could be read).
var ThisHost = sync.OnceValue(func() report.Host {
	h, _ := report.CollectHost()
	h.RDMACore = verbs.RDMACoreVersion()
	return h
})

// report ends the run: the server sends its figures, the client builds the
// result from both sides'.
func (s *session) report(m measurement) (*report.Result, error) {
	own := s.figures(m)
	if m.runErr == nil {
		own.Validation = s.side.validate(m.workers)
	}
	if s.role == server {
		if m.runErr != nil {
			return nil, m.runErr
		}
		payload, err := json.Marshal(own)
		if err != nil {
			return nil, fmt.Errorf("encoding the server's figures: %w", err)
		}
		return nil, s.conn.Send(exchange.Result{Payload: payload})
	}
	res := s.result(m, own)
	if m.runErr != nil {
		res.Status, res.Reason = report.StatusPartial, m.runErr.Error()
		return res, m.runErr
	}
	var msg exchange.Result
	if err := s.conn.RecvTimeout(exchange.MsgResult, &msg, s.local.IdleTimeout); err != nil {
		res.Status, res.Reason = report.StatusPartial, "no figures from the server: "+err.Error()
		return res, err
	}
	var theirs figures
	if err := json.Unmarshal(msg.Payload, &theirs); err != nil {
		err = fmt.Errorf("decoding the server's figures: %w", err)
		res.Status, res.Reason = report.StatusPartial, err.Error()
		return res, err
	}
	s.addServer(res, theirs)
	res.Counters = s.judgeCounters(own, theirs)
	if s.spec.Validate {
		res.Validation = "passed"
		switch {
		case own.Validation != "":
			res.Validation = "failed on the client: " + own.Validation
		case theirs.Validation != "":
			res.Validation = "failed on the server: " + theirs.Validation
		}
		if res.Validation != "passed" {
			return res, fmt.Errorf("validation %s", res.Validation)
		}
	}
	return res, nil
}

// figures sums what this side's workers measured, with its CPU usage.
func (s *session) figures(m measurement) figures {
	f := figures{Host: ThisHost(), Device: s.side.deviceInfo(), Posted: s.side.posted()}
	f.Host.Placement = s.local.Placement.Doc()
	f.Counters, f.CountersError = m.counters, m.countersErr
	var first, last int64
	for i, r := range m.workers {
		if s.isLoader(i) {
			continue // the loaders' figures are their own (loadedOf)
		}
		f.Ops += r.ops
		f.Received += r.received
		f.PeakGbps += r.peak.gbps()
		if r.firstNS != 0 && (first == 0 || r.firstNS < first) {
			first = r.firstNS
		}
		last = max(last, r.lastNS)
	}
	if first != 0 && last > first {
		f.ElapsedNS = last - first
	}
	a, b := s.cpuWindow(m)
	u := cpuSample(b).Since(cpuSample(a))
	f.CPU = &u
	return f
}

// cpuWindow is the span this side's CPU usage covers: the client's timed
// part, from the first worker's window start to the last one's end; the
// server's whole run (and a client's, should a loop have taken no window).
func (s *session) cpuWindow(m measurement) (a, b engine.CPUMark) {
	if s.role != client || len(m.workers) == 0 {
		return m.cpu0, m.cpu1
	}
	for i, r := range m.workers {
		if !r.window {
			return m.cpu0, m.cpu1
		}
		if i == 0 || r.cpu0.WallNS < a.WallNS {
			a = r.cpu0
		}
		if i == 0 || r.cpu1.WallNS > b.WallNS {
			b = r.cpu1
		}
	}
	return a, b
}

func cpuSample(m engine.CPUMark) report.CPUSample {
	st, _ := report.ParseProcStat([]byte(m.ProcStatCPU)) // zero when unreadable
	return report.CPUSample{WallNS: m.WallNS, UserNS: m.UserNS, SysNS: m.SysNS, Stat: st, Cores: runtime.NumCPU()}
}

// result builds the client's result from its workers and own figures.
func (s *session) result(m measurement, own figures) *report.Result {
	res := &report.Result{Params: report.ParamsOf(s.spec.Spec), Kind: s.w.Kind, Status: report.StatusOK}
	s.side.params(&res.Params)
	clk := engine.CurrentClock()
	res.Clock, res.ClockSampleNS = clk.Source, clk.SampleNS
	res.CPU.Local = own.CPU
	res.Received = own.Received
	res.ElapsedNS = own.ElapsedNS
	if s.w.Latency() {
		latency(res, m.workers)
		res.Open = openLoopOf(s.spec, m.workers)
		res.Loaded = s.loadedOf(m.workers)
	} else {
		res.Ops = own.Ops
		res.PeakBandwidthGbps = own.PeakGbps
	}
	res.Bytes = res.Ops * uint64(s.spec.Size)
	if res.Ops == 0 || res.ElapsedNS <= 0 {
		res.Status = report.StatusInsufficient
		res.Reason = fmt.Sprintf("the timed part completed %d operations in %d ns: too little for a figure; raise -D or -n, or lower -s", res.Ops, res.ElapsedNS)
	}
	return res
}

// latency gathers the workers' samples (iteration mode) or histograms
// (duration mode) into res.
func latency(res *report.Result, workers []workerResult) {
	rec := report.NewLatencyRecorder()
	for _, r := range workers {
		if r.rec != nil {
			rec.Merge(r.rec)
		}
		res.SamplesNS = append(res.SamplesNS, r.samples...)
		res.RawNS = append(res.RawNS, r.raw...)
	}
	res.Ops = uint64(len(res.SamplesNS))
	if rec.Count() > 0 || rec.OutOfRange() > 0 {
		rec.Fill(res)
		res.Ops = uint64(rec.Count() + rec.OutOfRange())
	}
}

// openLoopOf gathers the workers' open-loop figures; nil for a closed
// loop.
func openLoopOf(c point.Resolved, workers []workerResult) *report.OpenLoop {
	if c.Rate == 0 {
		return nil
	}
	o := &report.OpenLoop{RateOPS: c.Rate, Service: report.NewLatencyRecorder(), Lag: report.NewDelayRecorder()}
	for _, r := range workers {
		if r.open != nil {
			o.Issued += r.open.issued
			o.Behind += r.open.behind
			o.Service.Merge(r.open.service)
			o.Lag.Merge(r.open.lag)
		}
	}
	return o
}

// addServer folds the server's figures into the client's result: its
// host, device and CPU always; for bidirectional runs its traffic too, as
// perftest sums both directions.
func (s *session) addServer(res *report.Result, f figures) {
	res.Peer = &report.Peer{Host: f.Host, Device: f.Device}
	res.CPU.Remote = f.CPU
	srv := &report.Result{Params: res.Params, Kind: res.Kind, Status: report.StatusOK, Ops: f.Ops,
		Bytes: f.Ops * uint64(s.spec.Size), ElapsedNS: f.ElapsedNS, PeakBandwidthGbps: f.PeakGbps, Received: f.Received}
	srv.CPU.Local = f.CPU
	res.Server = srv
	if s.spec.Bidir && res.Kind == report.Bandwidth {
		res.Ops += f.Ops
		res.Bytes += srv.Bytes
		res.ElapsedNS = max(res.ElapsedNS, f.ElapsedNS)
		res.PeakBandwidthGbps += f.PeakGbps
	}
}
