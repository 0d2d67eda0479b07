package plot

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
			s.Points = append(s.Points, LatencyPoint{n, p50, p50 * tail, p50 * tail * 1.8})
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
			s.Points = append(s.Points, SizeValue{n, v})
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
			s.Points = append(s.Points, SizeValue{n, msgs*perMsgUS*1e-6 + 1e9*perByteNS*1e-9})
		}
		return s
	}
	return []SizeSeries{mk("write_bw", RDMA, 0.3, 0.05), mk("tcp_bw", TCP, 2.5, 0.6)}
}

// spectrum follows a latency distribution with a median m and a tail
// growing like (1/(1-p))^k.
