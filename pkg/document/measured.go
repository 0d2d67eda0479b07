package document

import (
	"fmt"
	"math"
)

// percentileSlack is how far above the maximum a percentile may lie: a
// histogram's percentile is the top of its bucket, which HdrHistogram at
// three significant digits puts within 0.1% of the values in it.
const percentileSlack = 1.01

// checkMeasured refuses a result, or one of its runs, that is marked ok
// but says nothing was measured, or whose figures contradict each other:
// what a dropped key or a clock that jumped leaves. Every view would
// otherwise draw or compare it as a measurement (a missing p50 left out
// of a chart without a word, a negative elapsed time divided by). what
// names the result or run for the message.
func checkMeasured(what, kind string, f *Figures) error {
	// An empty status is ok, as the writer takes it (pkg/report).
	if f.Status != "" && f.Status != StatusOK {
		return nil
	}
	notMeasured := func(key string, v any) error {
		return fmt.Errorf("%s.%s is %v in a run marked ok: want what was measured (a key dropped?), or status %q", what, key, v, StatusInsufficient)
	}
	if f.ElapsedNS < 0 {
		return fmt.Errorf("%s.elapsed_ns is %d: want the timed part's length in ns, not below 0 (a clock that went backwards?)", what, f.ElapsedNS)
	}
	switch kind {
	case KindLatency:
		if f.LatencyUS == nil || f.LatencyUS.P50 == nil {
			return notMeasured("latency_us.p50", "missing")
		}
		return checkOrder(what, f.LatencyUS)
	case KindBandwidth:
		if f.BwGbps == nil {
			return notMeasured("bw_gbps", "missing")
		}
		if f.MsgRateMpps == nil {
			return notMeasured("msg_rate_mpps", "missing")
		}
	}
	return nil
}

// checkOrder refuses latency figures out of order: min <= p50 <= p90 <=
// ... <= max. A clock that jumped during a
// run gives a sample no ordering of the others explains.
func checkOrder(what string, l *Latency) error {
	ordered := []struct {
		name string
		v    *float64
	}{{"min", l.Min}, {"p50", l.P50}, {"p90", l.P90}, {"p99", l.P99}, {"p99_9", l.P99_9}, {"p99_99", l.P99_99}}
	prev, prevName := math.Inf(-1), ""
	for _, x := range ordered {
		if x.v == nil {
			continue
		}
		if *x.v < prev {
			return fmt.Errorf("%s.latency_us.%s is %v, below %s %v: want percentiles in order (a clock that jumped?)", what, x.name, *x.v, prevName, prev)
		}
		prev, prevName = *x.v, x.name
	}
	if l.Max != nil && prev > *l.Max*percentileSlack {
		return fmt.Errorf("%s.latency_us.%s is %v, above max %v: want percentiles in order (a clock that jumped?)", what, prevName, prev, *l.Max)
	}
	return nil
}

// checkRuns refuses a result marked ok whose runs are not the ones the
// document says it measured: none recorded although every point was
// measured repeat times, or fewer than that (an interrupted point is
// marked partial, and a point never reached has no run).
func checkRuns(where string, r *Result, repeat int) error {
	if repeat <= 1 || r.Status != "" && r.Status != StatusOK {
		return nil
	}
	if !r.RunsRecorded {
		return fmt.Errorf("%s.runs is missing: the document measured every point %d times (repeat), want its runs (a key dropped?)", where, repeat)
	}
	if len(r.Runs) != repeat {
		return fmt.Errorf("%s.runs holds %d runs in a result marked ok: want the %d of repeat, or status %q", where, len(r.Runs), repeat, StatusPartial)
	}
	return nil
}
