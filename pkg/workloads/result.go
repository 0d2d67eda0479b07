package workloads

import (
	"strconv"

	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/verbs"
)

// params echoes the configuration into a result.
func (s *session) params() report.Params {
	c := s.cfg
	p := report.Params{
		Workload: c.Workload, Transport: c.Transport, Completion: c.Completion(), SizeBytes: c.Size,
		Iterations: c.Iterations, DurationS: c.Duration.Seconds(), Warmup: c.Warmup, TxDepth: c.TxDepth,
		RxDepth: c.RxDepth, CQMod: c.CQMod, PostList: c.PostList, InlineBytes: c.Inline, QPs: c.QPs,
		Threads: c.Threads, Bidir: c.Bidir, Imm: c.Imm, Atomic: c.Atomic, Port: c.IBPort,
	}
	clk := verbs.CurrentClock()
	p.Extra = map[string]string{"clock": clk.Source, "clock_sample_ns": strconv.FormatFloat(clk.SampleNS, 'f', 1, 64)}
	if n := s.node; n != nil {
		p.Device, p.GIDIndex, p.MTU = n.ctx.Name(), n.gid.Index, c.pathMTU(int(n.port.ActiveMTU))
	}
	return p
}

// result builds the client's result from its workers.
func (s *session) result(results []workerResult, own figures) *report.Result {
	res := &report.Result{Params: s.params(), Kind: s.w.Kind}
	local := own.CPU
	res.CPU.Local = &local
	if s.w.Latency() {
		rec := report.NewLatencyRecorder()
		for _, r := range results {
			if r.rec != nil {
				rec.Merge(r.rec)
			}
			res.SamplesNS = append(res.SamplesNS, r.samples...)
		}
		if rec.Count() > 0 {
			rec.Fill(res)
		}
		res.Ops = uint64(len(res.SamplesNS))
		if res.Ops == 0 {
			res.Ops = uint64(rec.Count())
		}
		res.Bytes = res.Ops * uint64(s.cfg.Size)
		return res
	}
	res.Ops = own.Ops
	res.Bytes = own.Ops * uint64(s.cfg.Size)
	res.ElapsedNS = own.ElapsedNS
	res.PeakBandwidthGbps = own.PeakGbps
	return res
}

// addServer folds the server's figures into the client's result: its
// CPU always; for bidirectional runs its traffic too, as perftest sums
// both directions.
func (s *session) addServer(res *report.Result, f figures) {
	cpu := f.CPU
	res.CPU.Remote = &cpu
	srv := &report.Result{Params: res.Params, Kind: res.Kind, Ops: f.Ops, Bytes: f.Ops * uint64(s.cfg.Size),
		ElapsedNS: f.ElapsedNS, PeakBandwidthGbps: f.PeakGbps}
	srv.CPU.Local = &cpu
	if f.Received > 0 {
		if srv.Extra == nil {
			srv.Extra = map[string]string{}
		}
		srv.Extra["received"] = itoa(int(f.Received))
	}
	res.Server = srv
	if s.cfg.Bidir && res.Kind == report.Bandwidth {
		res.Ops += f.Ops
		res.Bytes += srv.Bytes
		res.ElapsedNS = max(res.ElapsedNS, f.ElapsedNS)
		res.PeakBandwidthGbps += f.PeakGbps
	}
}
