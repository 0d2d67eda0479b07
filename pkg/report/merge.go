package report

import (
	"fmt"
	"strings"
)

// Merge is a point measured several times (--repeat): the merged result
// of its runs, with Runs holding each. Latency merges every sample (or
// histogram); bandwidth counts all bytes over all timed spans; CPU usage
// adds up; the status is the worst of the runs, the reason naming them.
// The runs share their parameters: the first one's are kept.
func Merge(runs []*Result) *Result {
	var rs []*Result
	for _, r := range runs {
		if r != nil {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return nil
	}
	m := *rs[0]
	m.Runs = rs
	if len(rs) == 1 {
		return &m
	}
	m.SamplesNS, m.RawNS, m.Hist, m.Moments, m.OutOfRange = nil, nil, nil, nil, 0
	m.Ops, m.Bytes, m.ElapsedNS, m.Received, m.PeakBandwidthGbps = 0, 0, 0, 0, 0
	m.CPU = CPUPair{OneProcess: rs[0].CPU.OneProcess}
	var reasons []string
	exact := true
	for _, r := range rs {
		exact = exact && len(r.SamplesNS) > 0
	}
	rec := NewLatencyRecorder()
	var local, remote *CPUUsage
	var servers []*Result
	for i, r := range rs {
		m.Ops += r.Ops
		m.Bytes += r.Bytes
		m.ElapsedNS += r.ElapsedNS
		m.Received += r.Received
		m.PeakBandwidthGbps = max(m.PeakBandwidthGbps, r.PeakBandwidthGbps)
		if worse(r.Status, m.Status) {
			m.Status = r.Status
		}
		if r.Status != "" && r.Status != StatusOK {
			reasons = append(reasons, fmt.Sprintf("run %d: %s", i+1, r.Reason))
		}
		if strings.HasPrefix(r.Validation, "failed") && !strings.HasPrefix(m.Validation, "failed") {
			m.Validation = r.Validation
		}
		switch {
		case exact:
			m.SamplesNS = append(m.SamplesNS, r.SamplesNS...)
		case len(r.SamplesNS) > 0:
			rec.RecordChunk(r.SamplesNS)
		case r.Hist != nil:
			rec.mergeResult(r)
		}
		local, remote = addUsage(local, r.CPU.Local), addUsage(remote, r.CPU.Remote)
		if r.Server != nil {
			servers = append(servers, r.Server)
		}
	}
	if !exact && (rec.Count() > 0 || rec.OutOfRange() > 0) {
		rec.Fill(&m)
	}
	m.CPU.Local, m.CPU.Remote = local, remote
	m.Counters = mergeCounters(rs)
	m.Open = mergeOpen(rs)
	m.Loaded = mergeLoaded(rs)
	m.Reason = strings.Join(reasons, "; ")
	if len(servers) == len(rs) {
		m.Server = Merge(servers)
		m.Server.Runs = nil
	}
	return &m
}

// statusRank orders statuses from best to worst.
var statusRank = map[string]int{"": 0, StatusOK: 0, StatusInsufficient: 1, StatusPartial: 2}

func worse(a, b string) bool { return statusRank[a] > statusRank[b] }

// addUsage adds b's CPU time and wall time to a (nil: unknown, which
// stays unknown once any run lacks it).
func addUsage(a, b *CPUUsage) *CPUUsage {
	if b == nil {
		return nil
	}
	if a == nil {
		c := *b
		return &c
	}
	busyA, busyB := a.SystemPctOfAll*a.WallS, b.SystemPctOfAll*b.WallS
	c := CPUUsage{UserS: a.UserS + b.UserS, SysS: a.SysS + b.SysS, WallS: a.WallS + b.WallS, Cores: a.Cores}
	if c.WallS > 0 {
		c.ProcessPctOfCore = cpuSeconds(c) / c.WallS * 100
		c.SystemPctOfAll = (busyA + busyB) / c.WallS
		c.SystemPctOfCore = c.SystemPctOfAll * float64(c.Cores)
		if c.Cores > 0 {
			c.ProcessPctOfAll = c.ProcessPctOfCore / float64(c.Cores)
		}
	}
	return &c
}

// mergeResult adds a histogram result's latency to r.
func (r *LatencyRecorder) mergeResult(res *Result) {
	r.outOfRange += res.OutOfRange + r.h().Merge(res.Hist)
	if res.Moments != nil {
		r.moments.Merge(*res.Moments)
	}
}
