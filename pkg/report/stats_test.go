package report

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// refPercentile is an independent nearest-rank percentile: the smallest
// rank k with k/N >= num/den, found by counting, on a separately sorted
// copy.
func refPercentile(samples []int64, num, den int64) int64 {
	s := slices.Clone(samples)
	slices.Sort(s)
	n := int64(len(s))
	for k := int64(1); k <= n; k++ {
		if k*den >= num*n {
			return s[k-1]
		}
	}
	return s[n-1]
}

var refPercents = []struct {
	name     string
	num, den int64
	get      func(LatencyStats) float64
}{
	{"p50", 50, 100, func(s LatencyStats) float64 { return s.P50NS }},
	{"p90", 90, 100, func(s LatencyStats) float64 { return s.P90NS }},
	{"p99", 99, 100, func(s LatencyStats) float64 { return s.P99NS }},
	{"p99.9", 999, 1000, func(s LatencyStats) float64 { return s.P99_9NS }},
	{"p99.99", 9999, 10000, func(s LatencyStats) float64 { return s.P99_99NS }},
}

// refMeanStdev computes mean and population deviation naively in float64.
func refMeanStdev(samples []int64) (mean, stdev float64) {
	for _, v := range samples {
		mean += float64(v)
	}
	mean /= float64(len(samples))
	for _, v := range samples {
		stdev += (float64(v) - mean) * (float64(v) - mean)
	}
	return mean, math.Sqrt(stdev / float64(len(samples)))
}

func mustLatency(t *testing.T, r *Result) LatencyStats {
	t.Helper()
	s := Summarize(r)
	if s.Latency == nil {
		t.Fatal("no latency statistics")
	}
	return *s.Latency
}

func TestP99_9At1000IterationsIsNotMax(t *testing.T) {
	// 1..1000 in a scrambled order.
	samples := make([]int64, 1000)
	for i := range samples {
		samples[i] = int64((i*7919)%1000) + 1
	}
	l := mustLatency(t, &Result{SamplesNS: samples})
	if l.P99_9NS != 999 {
		t.Errorf("p99.9 = %v, want 999 (the 999th ranked sample)", l.P99_9NS)
	}
	if l.MaxNS != 1000 || l.P99_9NS == l.MaxNS {
		t.Errorf("max = %v, p99.9 = %v: want max 1000 distinct from p99.9", l.MaxNS, l.P99_9NS)
	}
	if l.MinNS != 1 || l.P50NS != 500 || l.P90NS != 900 || l.P99NS != 990 || l.P99_99NS != 1000 {
		t.Errorf("got %+v", l)
	}
}

func TestMaxIsTrueMax(t *testing.T) {
	samples := spikySamples(1000, 1000, 500, 1) // largest 25000, second 18000
	l := mustLatency(t, &Result{SamplesNS: samples})
	if l.MaxNS != 25000 {
		t.Errorf("max = %v, want 25000 (not the second largest, 18000)", l.MaxNS)
	}
	if l.P99_9NS != 18000 {
		t.Errorf("p99.9 = %v, want 18000", l.P99_9NS)
	}
	if l.Count != 1000 || !l.Exact {
		t.Errorf("count %d exact %v", l.Count, l.Exact)
	}
}

func TestStdevSubMicrosecondJitter(t *testing.T) {
	for _, base := range []int64{1000, 1_000_000_000_000} {
		samples := []int64{base, base + 1, base, base + 1}
		l := mustLatency(t, &Result{SamplesNS: samples})
		if l.StdevNS != 0.5 {
			t.Errorf("base %d: stdev = %v ns, want 0.5", base, l.StdevNS)
		}
		if l.MeanNS != float64(base)+0.5 {
			t.Errorf("base %d: mean = %v ns, want %v", base, l.MeanNS, float64(base)+0.5)
		}
		if l.StdevUS() != 0.0005 {
			t.Errorf("stdev = %v us, want 0.0005", l.StdevUS())
		}
	}
}

func TestExactStatsMatchReference(t *testing.T) {
	for _, tc := range []struct {
		name    string
		samples []int64
	}{
		{"one", []int64{1234}},
		{"two", []int64{7, 3}},
		{"ten", []int64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}},
		{"spiky1000", spikySamples(1000, 1000, 500, 3)},
		{"wide12345", wideSamples(12345, 700, 5)},
		{"wide100k", wideSamples(100_000, 900, 11)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := slices.Clone(tc.samples)
			l := mustLatency(t, &Result{SamplesNS: tc.samples})
			if !slices.Equal(orig, tc.samples) {
				t.Fatal("Summarize reordered the caller's samples")
			}
			for _, p := range refPercents {
				if want := refPercentile(tc.samples, p.num, p.den); p.get(l) != float64(want) {
					t.Errorf("%s = %v, want %d", p.name, p.get(l), want)
				}
			}
			if want := slices.Max(tc.samples); l.MaxNS != float64(want) {
				t.Errorf("max = %v, want %d", l.MaxNS, want)
			}
			if want := slices.Min(tc.samples); l.MinNS != float64(want) {
				t.Errorf("min = %v, want %d", l.MinNS, want)
			}
			mean, stdev := refMeanStdev(tc.samples)
			if !near(l.MeanNS, mean, 1e-9) || !near(l.StdevNS, stdev, 1e-9) {
				t.Errorf("mean %v stdev %v, want %v %v", l.MeanNS, l.StdevNS, mean, stdev)
			}
		})
	}
}

func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Max(math.Abs(want), 1)
}

func TestHistogramStatsWithinPrecision(t *testing.T) {
	samples := append(wideSamples(50_000, 800, 9), 12_345_678) // one far outlier
	rec := NewLatencyRecorder()
	rec.RecordChunk(samples)
	withMoments := &Result{}
	rec.Fill(withMoments)
	noMoments := &Result{Hist: rec.Histogram()}

	for _, tc := range []struct {
		name    string
		r       *Result
		moments bool
	}{{"moments", withMoments, true}, {"histogram only", noMoments, false}} {
		t.Run(tc.name, func(t *testing.T) {
			l := mustLatency(t, tc.r)
			if l.Exact || l.Count != int64(len(samples)) {
				t.Fatalf("exact %v count %d", l.Exact, l.Count)
			}
			// The reported value is the top of the ranked sample's bucket,
			// at most 1/1024 of the value above it.
			within := func(what string, got float64, want int64) {
				t.Helper()
				w := float64(want)
				if got < w || got > w+w/1024 {
					t.Errorf("%s = %v, want within [%v, %v]", what, got, w, w+w/1024)
				}
			}
			for _, p := range refPercents {
				within(p.name, p.get(l), refPercentile(samples, p.num, p.den))
			}
			within("max", l.MaxNS, slices.Max(samples))
			mean, stdev := refMeanStdev(samples)
			minWant := float64(slices.Min(samples))
			if tc.moments {
				if l.MinNS != minWant || l.MaxNS != 12_345_678 {
					t.Errorf("min %v max %v, want exact %v 12345678", l.MinNS, l.MaxNS, minWant)
				}
				if !near(l.MeanNS, mean, 1e-9) || !near(l.StdevNS, stdev, 1e-9) {
					t.Errorf("mean %v stdev %v, want exact %v %v", l.MeanNS, l.StdevNS, mean, stdev)
				}
				return
			}
			if l.MinNS > minWant || l.MinNS < minWant-minWant/1024 {
				t.Errorf("min = %v, want within 1/1024 below %v", l.MinNS, minWant)
			}
			if !near(l.MeanNS, mean, 1e-3) || !near(l.StdevNS, stdev, 1e-3) {
				t.Errorf("mean %v stdev %v, want within 0.1%% of %v %v", l.MeanNS, l.StdevNS, mean, stdev)
			}
		})
	}
}

func TestHistogramSmallValuesAreExact(t *testing.T) {
	// Below 2048 ns the histogram has 1 ns buckets: same figures as exact.
	samples := spikySamples(1000, 1000, 500, 4)[30:]
	rec := NewLatencyRecorder()
	rec.RecordChunk(samples)
	r := &Result{}
	rec.Fill(r)
	h := mustLatency(t, r)
	e := mustLatency(t, &Result{SamplesNS: samples})
	h.Exact = true
	if !near(h.MeanNS, e.MeanNS, 1e-12) || !near(h.StdevNS, e.StdevNS, 1e-9) {
		t.Errorf("mean/stdev %v %v, want %v %v", h.MeanNS, h.StdevNS, e.MeanNS, e.StdevNS)
	}
	h.MeanNS, h.StdevNS = e.MeanNS, e.StdevNS
	if h != e {
		t.Errorf("histogram %+v\nexact     %+v", h, e)
	}
}

func TestNoLatencyData(t *testing.T) {
	for _, r := range []*Result{{}, {SamplesNS: []int64{}}, {Hist: newLatencyHistogram(), OutOfRange: 3}} {
		if s := Summarize(r); s.Latency != nil {
			t.Errorf("%+v: latency %+v, want nil", r, s.Latency)
		}
	}
	if s := Summarize(nil); s.Latency != nil || s.Bandwidth != nil {
		t.Error("Summarize(nil) not empty")
	}
}

func TestNearestRank(t *testing.T) {
	for _, tc := range []struct{ n, ppm, want int64 }{
		{1, ppmP50, 1}, {1, ppmP99_99, 1},
		{2, ppmP50, 1}, {3, ppmP50, 2}, {4, ppmP50, 2}, {10, ppmP50, 5},
		{10, ppmP90, 9}, {10, ppmP99, 10},
		{1000, ppmP99_9, 999}, {1000, ppmP99_99, 1000},
		{10000, ppmP99_99, 9999}, {100000, ppmP99_99, 99990},
		{1001, ppmP99_9, 1000},
		{5, 0, 1}, {5, 1_000_000, 5}, {0, ppmP50, 0},
		{math.MaxInt64, ppmP50, math.MaxInt64/2 + 1},
	} {
		if got := nearestRank(tc.n, tc.ppm); got != tc.want {
			t.Errorf("nearestRank(%d, %d) = %d, want %d", tc.n, tc.ppm, got, tc.want)
		}
	}
}

func TestBandwidthStats(t *testing.T) {
	r := &Result{Bytes: 1_000_000_000, Ops: 1_000_000, ElapsedNS: 1_000_000_000, PeakBandwidthGbps: 9.5}
	b := Summarize(r).Bandwidth
	if b == nil {
		t.Fatal("no bandwidth")
	}
	want := BandwidthStats{BwGbps: 8, BwMiBps: 1e9 / 1048576, MsgRateMpps: 1, PeakGbps: 9.5}
	if !near(b.BwGbps, want.BwGbps, 1e-12) || !near(b.BwMiBps, want.BwMiBps, 1e-12) ||
		!near(b.MsgRateMpps, want.MsgRateMpps, 1e-12) || b.PeakGbps != want.PeakGbps {
		t.Errorf("got %+v, want %+v", *b, want)
	}
	// 12.5 GB in 1 s is 100 Gb/s (10^9 bit/s, not 2^30).
	r = &Result{Bytes: 12_500_000_000, ElapsedNS: 1e9}
	if got := Summarize(r).Bandwidth.BwGbps; !near(got, 100, 1e-12) {
		t.Errorf("BwGbps = %v, want 100", got)
	}
	if Summarize(&Result{Bytes: 10}).Bandwidth != nil {
		t.Error("bandwidth without elapsed time")
	}
}

func TestCPUCost(t *testing.T) {
	local := &CPUUsage{UserS: 1, SysS: 1, WallS: 2, ProcessPctOfCore: 100}
	server := &Result{CPU: CPUPair{Local: &CPUUsage{UserS: 0.5, WallS: 2}}}
	r := &Result{Ops: 1_000_000, Bytes: 10_000_000_000, CPU: CPUPair{Local: local}, Server: server}
	s := Summarize(r)
	if s.CPULocal == nil || !s.CPULocal.HasPerOp || !near(s.CPULocal.MicrosPerOp, 2, 1e-12) {
		t.Errorf("local µs/op = %+v, want 2", s.CPULocal)
	}
	if !s.CPULocal.HasPerGB || !near(s.CPULocal.SecondsPerGB, 0.2, 1e-12) {
		t.Errorf("local s/GB = %v, want 0.2", s.CPULocal.SecondsPerGB)
	}
	if s.CPURemote == nil || !near(s.CPURemote.MicrosPerOp, 0.5, 1e-12) || !near(s.CPURemote.SecondsPerGB, 0.05, 1e-12) {
		t.Errorf("remote (from server) = %+v", s.CPURemote)
	}
	r.Ops, r.Bytes, r.Server = 0, 0, nil
	s = Summarize(r)
	if s.CPULocal.HasPerOp || s.CPULocal.HasPerGB || s.CPURemote != nil {
		t.Errorf("costs without work: %+v remote %+v", s.CPULocal, s.CPURemote)
	}
}

func TestNonFiniteInputsAreUnknown(t *testing.T) {
	r := &Result{Bytes: 8, Ops: 1, ElapsedNS: 1, PeakBandwidthGbps: math.Inf(1),
		CPU: CPUPair{Local: &CPUUsage{ProcessPctOfCore: math.NaN()}, Remote: &CPUUsage{UserS: 1}}}
	s := Summarize(r)
	if s.CPULocal != nil || s.CPURemote == nil || s.Bandwidth.PeakGbps != 0 {
		t.Errorf("local %+v remote %+v peak %v", s.CPULocal, s.CPURemote, s.Bandwidth.PeakGbps)
	}
	out := string(encode(t, "json", &Document{Results: []*Result{r}}))
	if !strings.Contains(out, `"bw_peak_gbps": null`) || !strings.Contains(out, `"local": null`) {
		t.Errorf("non-finite figures not reported as unknown:\n%s", out)
	}
}
