package report

import "math"

// LatencyStats are the latency statistics of one result, in nanoseconds.
//
// Percentiles use the nearest-rank definition: the p-th percentile of N
// values is the value of rank ceil(p/100*N) in ascending order (rank 1 is
// the smallest). So p99.9 of 1000 samples is the 999th smallest sample and
// differs from the max, which is the largest sample.
type LatencyStats struct {
	// Count is the number of values the statistics describe.
	Count int64
	// Exact is true when every figure comes from raw samples. When false,
	// they come from a histogram: percentiles are the highest value
	// equivalent to the ranked sample at 3 significant digits (at most
	// 1/1024 above the true value, exact below 2048 ns), clamped to
	// [MinNS, MaxNS]. Min, max, mean and deviation are exact when the
	// result had [Moments], else bucket bounds and bucket-midpoint
	// approximations.
	Exact bool
	// MinNS and MaxNS are the smallest and largest values.
	MinNS, MaxNS float64
	// P50NS .. P99_99NS are the nearest-rank percentiles.
	P50NS, P90NS, P99NS, P99_9NS, P99_99NS float64
	// MeanNS is the arithmetic mean.
	MeanNS float64
	// StdevNS is the population standard deviation, in float64.
	StdevNS float64
}

// MinUS returns MinNS in microseconds.
func (s LatencyStats) MinUS() float64 { return s.MinNS / 1e3 }

// P50US returns P50NS in microseconds.
func (s LatencyStats) P50US() float64 { return s.P50NS / 1e3 }

// P90US returns P90NS in microseconds.
func (s LatencyStats) P90US() float64 { return s.P90NS / 1e3 }

// P99US returns P99NS in microseconds.
func (s LatencyStats) P99US() float64 { return s.P99NS / 1e3 }

// P99_9US returns P99_9NS in microseconds.
func (s LatencyStats) P99_9US() float64 { return s.P99_9NS / 1e3 }

// P99_99US returns P99_99NS in microseconds.
func (s LatencyStats) P99_99US() float64 { return s.P99_99NS / 1e3 }

// MaxUS returns MaxNS in microseconds.
func (s LatencyStats) MaxUS() float64 { return s.MaxNS / 1e3 }

// MeanUS returns MeanNS in microseconds.
func (s LatencyStats) MeanUS() float64 { return s.MeanNS / 1e3 }

// StdevUS returns StdevNS in microseconds.
func (s LatencyStats) StdevUS() float64 { return s.StdevNS / 1e3 }

// BandwidthStats are the throughput figures of one result.
type BandwidthStats struct {
	// BwGbps is the average bandwidth in 10^9 bit/s.
	BwGbps float64
	// BwMiBps is the average bandwidth in 2^20 byte/s.
	BwMiBps float64
	// MsgRateMpps is the operation rate in 10^6 operations/s.
	MsgRateMpps float64
	// PeakGbps is the engine's peak bandwidth in 10^9 bit/s, 0 if unknown.
	PeakGbps float64
}

// CPUCost is a CPU usage and its cost per unit of work: the usage's rate
// (process CPU time over its wall time) applied to the result's timed
// span, per operation and per byte. The client's usage covers exactly its
// timed part; the server's covers its whole run, at the same rate.
type CPUCost struct {
	// Usage is the CPU usage the cost comes from.
	Usage CPUUsage
	// MicrosPerOp is process CPU time per operation in µs; valid when
	// HasPerOp.
	MicrosPerOp float64
	HasPerOp    bool
	// SecondsPerGB is process CPU seconds per 10^9 bytes moved; valid when
	// HasPerGB.
	SecondsPerGB float64
	HasPerGB     bool
}

// Summary holds the statistics derived from a [Result].
type Summary struct {
	// Latency is nil when the result has no latency data.
	Latency *LatencyStats
	// Bandwidth is nil when the elapsed time is unknown.
	Bandwidth *BandwidthStats
	// CPULocal and CPURemote are nil when that side's usage is unknown.
	// Both are costed against the result's own Ops, Bytes and span.
	CPULocal, CPURemote *CPUCost
	// CPUTotal is both sides' cost together: local and remote added, or
	// local alone when both sides ran in one process. Nil when unknown.
	CPUTotal *CPUCost
}

// Summarize derives the statistics of r. Latency comes exactly from
// r.SamplesNS when it is non-empty, else from r.Hist (see [LatencyStats]).
func Summarize(r *Result) Summary {
	var s Summary
	if r == nil {
		return s
	}
	switch {
	case len(r.SamplesNS) > 0:
		s.Latency = sampleStats(r.SamplesNS)
	case r.Hist != nil:
		s.Latency = histStats(r)
	}
	s.Bandwidth = bandwidthStats(r)
	local, remote := r.CPU.Local, r.CPU.Remote
	if remote == nil && r.Server != nil && !r.CPU.OneProcess {
		remote = r.Server.CPU.Local
	}
	s.CPULocal = cpuCost(local, r)
	s.CPURemote = cpuCost(remote, r)
	switch {
	case r.CPU.OneProcess:
		s.CPUTotal = s.CPULocal
	case s.CPULocal != nil && s.CPURemote != nil:
		s.CPUTotal = &CPUCost{Usage: s.CPULocal.Usage,
			MicrosPerOp: s.CPULocal.MicrosPerOp + s.CPURemote.MicrosPerOp, HasPerOp: s.CPULocal.HasPerOp,
			SecondsPerGB: s.CPULocal.SecondsPerGB + s.CPURemote.SecondsPerGB, HasPerGB: s.CPULocal.HasPerGB}
	}
	return s
}

// sampleStats computes exact statistics from raw samples.
func sampleStats(samples []int64) *LatencyStats {
	sorted := sortedCopy(samples)
	p := samplePercentiles(sorted, reportedPPM)
	n := float64(len(sorted))
	// Two passes: the mean from offsets to the minimum (exact while their
	// sum stays below 2^53), then the squared deviations from it.
	lo := sorted[0]
	var off float64
	for _, v := range sorted {
		off += float64(v - lo)
	}
	mean := float64(lo) + off/n
	var ss float64
	for _, v := range sorted {
		d := float64(v) - mean
		ss += d * d
	}
	return &LatencyStats{
		Count: int64(len(sorted)),
		Exact: true,
		MinNS: float64(sorted[0]),
		MaxNS: float64(sorted[len(sorted)-1]),
		P50NS: float64(p[0]), P90NS: float64(p[1]), P99NS: float64(p[2]),
		P99_9NS: float64(p[3]), P99_99NS: float64(p[4]),
		MeanNS:  mean,
		StdevNS: math.Sqrt(ss / n),
	}
}

// histStats computes statistics from r.Hist, with r.Moments if present.
func histStats(r *Result) *LatencyStats {
	hs := histPercentiles(r.Hist, reportedPPM)
	if hs.count == 0 {
		return nil
	}
	st := &LatencyStats{
		Count:   hs.count,
		MinNS:   float64(hs.minNS),
		MaxNS:   float64(hs.maxNS),
		MeanNS:  r.Hist.Mean(),
		StdevNS: r.Hist.StdDev(),
	}
	if m := r.Moments; m != nil && m.Count > 0 {
		st.MinNS, st.MaxNS = float64(m.MinNS), float64(m.MaxNS)
		st.MeanNS, st.StdevNS = m.MeanNS, m.StdevNS()
	}
	clamp := func(v int64) float64 { return math.Min(math.Max(float64(v), st.MinNS), st.MaxNS) }
	st.P50NS, st.P90NS, st.P99NS = clamp(hs.percents[0]), clamp(hs.percents[1]), clamp(hs.percents[2])
	st.P99_9NS, st.P99_99NS = clamp(hs.percents[3]), clamp(hs.percents[4])
	return st
}

// bandwidthStats computes throughput, nil when the elapsed time is unknown.
func bandwidthStats(r *Result) *BandwidthStats {
	if r.ElapsedNS <= 0 {
		return nil
	}
	secs := float64(r.ElapsedNS) / 1e9
	return &BandwidthStats{
		BwGbps:      float64(r.Bytes) * 8 / secs / 1e9,
		BwMiBps:     float64(r.Bytes) / secs / (1 << 20),
		MsgRateMpps: float64(r.Ops) / secs / 1e6,
		PeakGbps:    knownPositive(r.PeakBandwidthGbps),
	}
}

// knownPositive returns v when it is a positive finite number, else 0
// (unknown).
func knownPositive(v float64) float64 {
	if v > 0 && !math.IsInf(v, 1) {
		return v
	}
	return 0
}

// cpuCost costs u against r's work; nil when u is unknown or holds a
// non-finite figure (a usage that cannot be trusted is reported as unknown).
func cpuCost(u *CPUUsage, r *Result) *CPUCost {
	if u == nil || !finiteUsage(*u) {
		return nil
	}
	secs := cpuSeconds(*u)
	if u.WallS > 0 && r.ElapsedNS > 0 {
		secs = secs / u.WallS * float64(r.ElapsedNS) / 1e9
	}
	c := &CPUCost{Usage: *u}
	if r.Ops > 0 {
		c.MicrosPerOp, c.HasPerOp = secs*1e6/float64(r.Ops), true
	}
	if r.Bytes > 0 {
		c.SecondsPerGB, c.HasPerGB = secs/(float64(r.Bytes)/1e9), true
	}
	return c
}
