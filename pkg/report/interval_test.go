package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

func recorderWith(values ...[2]int64) *LatencyRecorder {
	r := NewLatencyRecorder()
	for _, v := range values {
		for range v[1] {
			r.Record(v[0])
		}
	}
	return r
}

func TestFormatInterval(t *testing.T) {
	fast := recorderWith([2]int64{1000, 1000})                       // 1000 x 1.000 us
	slow := recorderWith([2]int64{1000, 1000}, [2]int64{3000, 1001}) // then 1001 x 3.000 us
	for _, tc := range []struct {
		name      string
		prev, cur Counters
		want      string
	}{
		{
			name: "first tick, no latency",
			cur:  Counters{ElapsedNS: 1e9, Ops: 2_000_000, Bytes: 12_500_000_000},
			want: "[ 1.0s] interval: 100.00 Gb/s 2.000 Mpps | cumulative: 100.00 Gb/s 2.000 Mpps",
		},
		{
			name: "rates differ per interval",
			prev: Counters{ElapsedNS: 1e9, Ops: 2_000_000, Bytes: 12_500_000_000},
			cur:  Counters{ElapsedNS: 3e9, Ops: 3_000_000, Bytes: 25_000_000_000},
			want: "[ 3.0s] interval: 50.00 Gb/s 0.500 Mpps | cumulative: 66.67 Gb/s 1.000 Mpps",
		},
		{
			name: "interval latency is the difference of cumulative histograms",
			prev: Counters{ElapsedNS: 1e9, Ops: 1000, Bytes: 1000, Latency: fast},
			cur:  Counters{ElapsedNS: 2e9, Ops: 2001, Bytes: 2001, Latency: slow},
			// 3000 ns is in a 2 ns bucket: the interval shows its top (3001);
			// the cumulative median is clamped to the exact max, as in
			// Summarize.
			want: "[ 2.0s] interval: 0.00000801 Gb/s 0.00100 Mpps p50 3.001 us | cumulative: 0.00000800 Gb/s 0.00100 Mpps p50 3.000 us",
		},
		{
			name: "no new samples and no elapsed time",
			prev: Counters{ElapsedNS: 2e9, Latency: fast},
			cur:  Counters{ElapsedNS: 2e9, Latency: fast},
			want: "[ 2.0s] interval: - Gb/s - Mpps p50 - us | cumulative: 0.00 Gb/s 0.000 Mpps p50 1.000 us",
		},
		{
			name: "counters going backwards read zero",
			prev: Counters{ElapsedNS: 1e9, Ops: 10, Bytes: 10},
			cur:  Counters{ElapsedNS: 15e8, Ops: 5, Bytes: 5},
			want: "[ 1.5s] interval: 0.00 Gb/s 0.000 Mpps | cumulative: 0.0000000267 Gb/s 0.00000333 Mpps",
		},
		{
			name: "long run",
			cur:  Counters{ElapsedNS: 12345e9, Ops: 12345e6, Bytes: 12345e9 / 8},
			want: "[12345.0s] interval: 1.00 Gb/s 1.000 Mpps | cumulative: 1.00 Gb/s 1.000 Mpps",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FormatInterval(tc.prev, tc.cur); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestIntervalReporterCopiesRecorder(t *testing.T) {
	var buf bytes.Buffer
	rep := NewIntervalReporter(&buf)
	live := NewLatencyRecorder()
	for i := range 3 {
		for range 100 {
			live.Record(int64(1000 * (i + 1))) // 1, 2, 3 us per interval
		}
		n := uint64(100 * (i + 1))
		if err := rep.Report(Counters{ElapsedNS: int64(i+1) * 1e9, Ops: n, Bytes: n * 125_000, Latency: live}); err != nil {
			t.Fatal(err)
		}
	}
	want := "[ 1.0s] interval: 0.10 Gb/s 0.000100 Mpps p50 1.000 us | cumulative: 0.10 Gb/s 0.000100 Mpps p50 1.000 us\n" +
		"[ 2.0s] interval: 0.10 Gb/s 0.000100 Mpps p50 2.000 us | cumulative: 0.10 Gb/s 0.000100 Mpps p50 1.000 us\n" +
		"[ 3.0s] interval: 0.10 Gb/s 0.000100 Mpps p50 3.001 us | cumulative: 0.10 Gb/s 0.000100 Mpps p50 2.000 us\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	if err := NewIntervalReporter(failWriter{}).Report(Counters{}); !errors.Is(err, errDiskFull) {
		t.Errorf("err = %v", err)
	}
}

// The streamed interval records carry the figures of the printed lines:
// the same rates, the same medians, and the p99 and maximum beside them.
func TestIntervalFiguresOf(t *testing.T) {
	var buf bytes.Buffer
	rep := NewIntervalReporter(&buf)
	type tick struct{ iv, cum document.IntervalFigures }
	var ticks []tick
	rep.OnTick = func(iv, cum document.IntervalFigures) { ticks = append(ticks, tick{iv, cum}) }
	live := NewLatencyRecorder()
	for i := range 2 {
		for j := range 100 {
			live.Record(int64(1000*(i+1) + j)) // 1.000..1.099 us, then 2.000..2.099
		}
		n := uint64(100 * (i + 1))
		if err := rep.Report(Counters{ElapsedNS: int64(i+1) * 1e9, Ops: n, Bytes: n * 125_000, Latency: live}); err != nil {
			t.Fatal(err)
		}
	}
	if len(ticks) != 2 {
		t.Fatalf("%d ticks", len(ticks))
	}
	iv, cum := ticks[1].iv, ticks[1].cum
	if iv.Seconds != 1 || iv.Ops != 100 || cum.Ops != 200 || cum.Seconds != 2 || *iv.BwGbps != 0.1 || *cum.MsgRateMpps != 0.0001 {
		t.Errorf("rates: interval %+v cumulative %+v", iv, cum)
	}
	if l := iv.LatencyUS; l == nil || *l.P50 != 2.049 || *l.P99 != 2.099 || *l.Max != 2.099 {
		t.Errorf("interval latency %+v", l)
	}
	// The cumulative maximum is the exact one, the percentiles clamped to it.
	if l := cum.LatencyUS; *l.P50 != 1.099 || *l.Max != 2.099 || *l.P99 > *l.Max {
		t.Errorf("cumulative latency p50 %v p99 %v max %v", *l.P50, *l.P99, *l.Max)
	}
	if !strings.Contains(buf.String(), "[ 2.0s] interval: 0.10 Gb/s 0.000100 Mpps p50 2.049 us | cumulative: 0.10 Gb/s 0.000100 Mpps p50 1.099 us") {
		t.Errorf("the printed lines disagree:\n%s", buf.String())
	}
	// A span without time or samples: nulls, not zeros.
	iv, _ = IntervalFiguresOf(Counters{}, Counters{Latency: NewLatencyRecorder()})
	if iv.BwGbps != nil || iv.MsgRateMpps != nil || iv.LatencyUS.P50 != nil {
		t.Errorf("empty span: %+v", iv)
	}
}
