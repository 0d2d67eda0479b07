package plot

import (
	"fmt"
	"math"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// Realistic fake data: soft-RoCE-like RDMA against loopback-like TCP.

var suiteSizes = []int{2, 64, 4 << 10, 64 << 10, 1 << 20}

// sweepSizes is a 2 B .. 8 MiB sweep: 23 powers of two.
func sweepSizes() []int {
	var s []int
	for n := 2; n <= 8<<20; n *= 2 {
		s = append(s, n)
	}
	return s
}

var testCaption = Caption{
	Device: "rxe0 port 1 (soft-RoCE over eth0)", Firmware: "n/a (software)",
	Host: "bench-a → bench-b", Date: "2025-03-14T10:22:05Z", Tool: "rdma-bench v0.4.0-12-gdeadbee",
}

// wireUS is the time a message of n bytes takes on a link of gbps Gb/s.
func wireUS(n int, gbps float64) float64 { return float64(n) * 8 / (gbps * 1e3) }

func latencySeries(sizes []int) []LatencySeries {
	mk := func(name string, f Family, base, gbps, tail float64) LatencySeries {
		s := LatencySeries{Name: name, Family: f}
		for _, n := range sizes {
			p50 := base + wireUS(n, gbps)
			s.Points = append(s.Points, LatencyPoint{n, p50, p50 * tail, p50 * tail * 1.8, Caveat{}})
		}
		return s
	}
	return []LatencySeries{
		mk("write_lat", RDMA, 4.1, 20, 1.6),
		mk("read_lat", RDMA, 6.3, 18, 1.5),
		mk("send_lat", RDMA, 5.0, 19, 1.7),
		mk("tcp_lat", TCP, 18, 9, 2.5),
	}
}

func rateSeries(sizes []int, metric RateMetric) []SizeSeries {
	mk := func(name string, f Family, peak, half float64) SizeSeries {
		s := SizeSeries{Name: name, Family: f}
		for _, n := range sizes {
			gbps := peak * float64(n) / (float64(n) + half)
			v := gbps
			if metric == MessageRate {
				v = gbps * 1e3 / (float64(n) * 8) // Mpps
			}
			s.Points = append(s.Points, SizeValue{n, v, Caveat{}})
		}
		return s
	}
	return []SizeSeries{
		mk("write_bw", RDMA, 38, 2048),
		mk("read_bw", RDMA, 35, 3000),
		mk("send_bw", RDMA, 37, 2500),
		mk("tcp_bw", TCP, 22, 16384),
	}
}

func cpuSeries(sizes []int) []SizeSeries {
	mk := func(name string, f Family, perMsgUS, perByteNS float64) SizeSeries {
		s := SizeSeries{Name: name, Family: f}
		for _, n := range sizes {
			msgs := 1e9 / float64(n)
			s.Points = append(s.Points, SizeValue{n, msgs*perMsgUS*1e-6 + 1e9*perByteNS*1e-9, Caveat{}})
		}
		return s
	}
	return []SizeSeries{mk("write_bw", RDMA, 0.3, 0.05), mk("tcp_bw", TCP, 2.5, 0.6)}
}

// spectrum follows a latency distribution with a median m and a tail
// growing like (1/(1-p))^k.

// spectrum follows a latency distribution with a median m and a tail
// growing like (1/(1-p))^k.
func spectrum(name string, f Family, m, k float64) SpectrumCurve {
	c := SpectrumCurve{Name: name, Family: f}
	for _, p := range []float64{0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.995, 99.999, 100} {
		x := 1 / (1 - p/100)
		if p == 100 {
			x = 2e5
		}
		c.Points = append(c.Points, SpectrumPoint{p, m * 0.8 * math.Pow(x, k)})
	}
	return c
}

var metricNames = []string{"write_lat p50", "write_lat p99", "read_lat p50", "read_lat p99", "send_lat p50",
	"send_lat p99", "write_bw", "read_bw", "send_bw", "tcp_lat p50"}

func whiskers40() []Whisker {
	var w []Whisker
	for i := range 40 {
		size := display.SizeTick(suiteSizes[i%4+1])
		d := 3 * math.Sin(float64(i)*1.7)
		half := 0.8 + float64(i%5)*0.4
		th := 5.0
		if i%10 >= 6 && i%10 <= 8 {
			th = -5 // bandwidth: a drop is a regression
		}
		if i == 7 {
			d = -9.5
		}
		if i == 22 {
			d = 8.4
		}
		wk := Whisker{Label: metricNames[i%10] + " " + size, DeltaPct: d, LoPct: d - half, HiPct: d + half, ThresholdPct: &th}
		wk.Regression = (th > 0 && wk.LoPct > th) || (th < 0 && wk.HiPct < th)
		w = append(w, wk)
	}
	return w
}

func trendSeries() ([]string, []TrendSeries) {
	labels := []string{"20.35.1012", "20.36.1010", "20.37.1014", "20.38.1002", "20.39.1100"}
	mk := func(name string, f Family, meds ...float64) TrendSeries {
		s := TrendSeries{Name: name, Family: f}
		for _, m := range meds {
			s.Values = append(s.Values, TrendValue{m, m * 0.96, m * 1.05, false, false})
		}
		return s
	}
	return labels, []TrendSeries{
		mk("write_lat 64 p50", RDMA, 2.1, 2.05, 2.2, 2.0, 2.6),
		mk("read_lat 64 p50", RDMA, 3.0, 3.1, 2.9, 2.95, 3.4),
		mk("tcp_lat 64 p50", TCP, 11.8, 12.1, 11.9, 12.0, 12.2),
	}
}

func matrix(n int, unit string) Grid {
	g := Grid{RowAxis: "client host", ColAxis: "server host", Unit: unit}
	for i := range n {
		g.Rows = append(g.Rows, hostName(i))
		g.Cols = append(g.Cols, hostName(i))
		row := make([]float64, n)
		for j := range n {
			switch {
			case i == j:
				row[j] = math.NaN()
			case i == 2 || j == 2:
				row[j] = 61.5 + float64((i*7+j*3)%5)
			default:
				row[j] = 92 + float64((i*7+j*3)%9)*0.7
			}
		}
		g.Values = append(g.Values, row)
	}
	return g
}

func hostName(i int) string {
	return "gpu-node-" + string(rune('a'+i/10)) + string(rune('0'+i%10))
}

// longTrend has twelve long labels and long series names: slanted labels
// and a legend below the plot.
func longTrend() ([]string, []TrendSeries) {
	_, ts := trendSeries()
	var labels []string
	var out []TrendSeries
	for _, s := range ts {
		out = append(out, TrendSeries{Name: s.Name + " with a long name to push the legend below", Family: s.Family})
	}
	for i := range 12 {
		labels = append(labels, fmt.Sprintf("2025-%02d-01 fw 20.%d.1002", i+1, 30+i))
		for j := range out {
			out[j].Values = append(out[j].Values, ts[j].Values[i%5])
		}
	}
	return labels, out
}
