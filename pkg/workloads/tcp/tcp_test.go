package tcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/exchange"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// testConfig is a quick run of workload.
func testConfig(workload string) Config {
	c := Defaults()
	c.Workload = workload
	c.IdleTimeout = 5 * time.Second
	if workload == Lat {
		c.Iterations, c.Warmup = 200, 20
	} else {
		c.Size, c.Iterations, c.Warmup = 16384, 200, 10
	}
	return c
}

func TestLoopback(t *testing.T) {
	for _, wl := range []string{Lat, Bw} {
		for _, busy := range []bool{false, true} {
			for _, dur := range []bool{false, true} {
				name := fmt.Sprintf("%s/busy=%v/duration=%v", wl, busy, dur)
				t.Run(name, func(t *testing.T) {
					cfg := testConfig(wl)
					cfg.BusyPoll = busy
					if dur {
						cfg.Iterations, cfg.Duration = 0, 100*time.Millisecond
					}
					res, err := Loopback(context.Background(), cfg)
					if err != nil {
						t.Fatal(err)
					}
					checkResult(t, cfg, res)
				})
			}
		}
	}
}

// checkResult checks what every successful run must report.
func checkResult(t *testing.T, cfg Config, res *report.Result) {
	t.Helper()
	if err := cfg.Normalize(); err != nil {
		t.Fatal(err)
	}
	p := res.Params
	wantCompletion := map[bool]string{false: CompletionBlock, true: CompletionBusy}[cfg.BusyPoll]
	if p.Workload != cfg.Workload || p.Transport != "TCP" || p.Completion != wantCompletion ||
		p.SizeBytes != cfg.Size || p.Iterations != cfg.Iterations || p.Warmup != cfg.Warmup || p.QPs != 1 || p.Threads != 1 {
		t.Errorf("params = %+v", p)
	}
	if cfg.Iterations > 0 && res.Ops != uint64(cfg.Iterations) {
		t.Errorf("ops = %d, want %d", res.Ops, cfg.Iterations)
	}
	if res.Ops == 0 || res.ElapsedNS <= 0 {
		t.Errorf("ops = %d, elapsed = %d ns", res.Ops, res.ElapsedNS)
	}
	perOp := uint64(cfg.Size)
	if cfg.Workload == Lat {
		perOp *= 2
	}
	if res.Bytes != res.Ops*perOp {
		t.Errorf("bytes = %d, want %d × %d", res.Bytes, res.Ops, perOp)
	}
	if res.CPU.Local == nil || res.CPU.Remote == nil || res.CPU.Local.WallS <= 0 || res.CPU.Remote.WallS <= 0 {
		t.Errorf("cpu = %+v / %+v", res.CPU.Local, res.CPU.Remote)
	}
	if res.Server == nil || res.Server.Ops != res.Ops || res.Server.Bytes != res.Bytes || res.Server.ElapsedNS < 0 {
		t.Errorf("server = %+v, client ops %d bytes %d", res.Server, res.Ops, res.Bytes)
	}
	if cfg.BusyPoll && res.Extra["so_busy_poll_us"] == "" {
		t.Errorf("extra = %v", res.Extra)
	}
	switch {
	case cfg.Workload == Bw:
		if res.Kind != report.Bandwidth || res.SamplesNS != nil || res.Hist != nil {
			t.Errorf("kind %v, %d samples, hist %v", res.Kind, len(res.SamplesNS), res.Hist != nil)
		}
		if s := report.Summarize(res); s.Bandwidth == nil || s.Bandwidth.BwGbps <= 0 {
			t.Errorf("bandwidth = %+v", s.Bandwidth)
		}
	case cfg.Iterations > 0:
		if res.Kind != report.Latency || len(res.SamplesNS) != cfg.Iterations {
			t.Fatalf("kind %v, %d samples, want %d", res.Kind, len(res.SamplesNS), cfg.Iterations)
		}
		for i, v := range res.SamplesNS {
			if v <= 0 {
				t.Fatalf("sample %d = %d ns", i, v)
			}
		}
	default:
		if res.Kind != report.Latency || res.SamplesNS != nil || res.Hist == nil || res.Moments == nil {
			t.Fatalf("kind %v, %d samples, hist %v", res.Kind, len(res.SamplesNS), res.Hist != nil)
		}
		if m := res.Moments; uint64(m.Count+res.OutOfRange) != res.Ops || m.MinNS <= 0 {
			t.Errorf("moments %+v, out of range %d, ops %d", m, res.OutOfRange, res.Ops)
		}
	}
}

// freePort returns a TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// runClient retries RunClient until the server listens.
func runClient(t *testing.T, ctx context.Context, cfg Config, port int) (*report.Result, error) {
	t.Helper()
	for i := 0; ; i++ {
		res, err := RunClient(ctx, cfg, "127.0.0.1", port)
		var ae *exchange.AddrError
		if !errors.As(err, &ae) || i == 100 {
			return res, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestServeRunClient(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port := freePort(t)
	base := Defaults()
	var mu sync.Mutex
	var logs []string
	base.Logf = func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logs = append(logs, fmt.Sprintf(format, args...))
	}
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, base, nil, "127.0.0.1", port, true) }()

	for _, wl := range []string{Lat, Bw} {
		cfg := testConfig(wl)
		res, err := runClient(t, ctx, cfg, port)
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, cfg, res)
	}
	cancel()
	select {
	case err := <-served:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Serve returned %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logs) != 2 || !strings.HasSuffix(logs[0], ": done") {
		t.Errorf("logs = %q", logs)
	}
}

func TestParamMismatch(t *testing.T) {
	ln, err := exchange.Listen("127.0.0.1", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan error, 1)
	go func() {
		served <- ServeListener(context.Background(), Defaults(), map[string]string{"size": "64", "workload": Lat}, ln, false)
	}()
	_, err = RunClient(context.Background(), testConfig(Lat), "127.0.0.1", ln.Port())
	if !errors.Is(err, exchange.ErrParamMismatch) || !strings.Contains(err.Error(), "size: local 2, peer 64") {
		t.Errorf("client: %v", err)
	}
	if err := <-served; !errors.Is(err, exchange.ErrParamMismatch) || !strings.Contains(err.Error(), "size: local 64, peer 2") {
		t.Errorf("server: %v", err)
	}
}

func TestPeerFails(t *testing.T) {
	for _, tc := range []struct {
		name, workload string
		closeAt        int // close the server's data socket after this many messages
		silentAt       int // or stop answering
		want           string
	}{
		{"lat/close", Lat, 50, 0, "connection closed by peer"},
		{"bw/close", Bw, 50, 0, "connection closed by peer"},
		{"lat/silent", Lat, 0, 50, "peer went silent: nothing received for 300ms"},
		{"bw/silent", Bw, 0, 50, "peer stopped reading"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(tc.workload)
			cfg.Iterations = 1000000
			cfg.IdleTimeout = 300 * time.Millisecond
			cfg.failAfter, cfg.silentAfter = tc.closeAt, tc.silentAt
			start := time.Now()
			res, err := Loopback(context.Background(), cfg)
			took := time.Since(start)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if res != nil {
				t.Errorf("result %+v from a failed run", res)
			}
			if took > 5*time.Second {
				t.Errorf("took %v to fail", took)
			}
			if tc.closeAt > 0 && !strings.Contains(err.Error(), "test: closed the data connection") {
				t.Errorf("err = %v, want the server's reason", err)
			}
			if tc.silentAt > 0 && !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("err = %v, want a deadline error", err)
			}
			t.Logf("%v after %v", err, took)
		})
	}
}

func TestCancel(t *testing.T) {
	for _, wl := range []string{Lat, Bw} {
		t.Run(wl, func(t *testing.T) {
			cfg := testConfig(wl)
			cfg.Iterations, cfg.Duration = 0, time.Minute
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			start := time.Now()
			res, err := Loopback(ctx, cfg)
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("took %v to stop", took)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want context.DeadlineExceeded", err)
			}
			if res == nil || res.Ops == 0 || res.CPU.Local == nil || res.ElapsedNS <= 0 {
				t.Fatalf("partial result = %+v", res)
			}
			if wl == Lat && (res.Moments == nil || uint64(res.Moments.Count) != res.Ops) {
				t.Errorf("moments %+v, ops %d", res.Moments, res.Ops)
			}
		})
	}
}

func TestServeCancelWhileWaiting(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if err := Serve(ctx, Defaults(), nil, "127.0.0.1", 0, false); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestNotATCPServer(t *testing.T) {
	ln, err := exchange.Listen("127.0.0.1", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // a server of another kind: no data port
		c, err := ln.Accept(context.Background())
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = c.Handshake(exchange.RoleServer, map[string]string{})
		_ = c.Recv(exchange.MsgSync, nil)
	}()
	_, err = RunClient(context.Background(), testConfig(Lat), "127.0.0.1", ln.Port())
	if err == nil || !strings.Contains(err.Error(), "announced no data port") {
		t.Errorf("err = %v", err)
	}
}

// TestReportInterval: --report-interval prints live figures during a TCP
// run, in both modes, and the last tick's cumulative rate agrees with the
// run's final rate.
func TestReportInterval(t *testing.T) {
	for _, wl := range []string{Lat, Bw} {
		for _, dur := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/duration=%v", wl, dur), func(t *testing.T) {
				var progress strings.Builder
				cfg := testConfig(wl)
				cfg.ReportInterval, cfg.Progress = 200*time.Millisecond, &progress
				if dur {
					cfg.Iterations, cfg.Duration = 0, time.Second
				} else {
					// At least a few ticks' worth on a fast machine
					// (5 µs half round trips, 50 Gb/s), a few seconds on
					// a slow one.
					cfg.ReportInterval = 50 * time.Millisecond
					cfg.Iterations = map[string]int{Lat: 20000, Bw: 100000}[wl]
				}
				res, err := Loopback(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				var ticks []string
				for _, l := range strings.Split(progress.String(), "\n") {
					if strings.Contains(l, "cumulative:") {
						ticks = append(ticks, l)
					}
				}
				elapsed := float64(res.ElapsedNS) / 1e9
				if want := int(elapsed/cfg.ReportInterval.Seconds()) - 1; len(ticks) < want || len(ticks) == 0 {
					t.Fatalf("a %.2f s run printed %d ticks, want at least %d:\n%s", elapsed, len(ticks), max(want, 1), progress.String())
				}
				last := ticks[len(ticks)-1]
				if wl == Lat && !strings.Contains(last, " p50 ") {
					t.Errorf("a latency tick without p50: %q", last)
				}
				var secs, gbps, mpps float64
				if _, err := fmt.Sscanf(last[strings.Index(last, "[")+1:], "%fs]", &secs); err != nil {
					t.Fatalf("tick %q: %v", last, err)
				}
				if _, err := fmt.Sscanf(last[strings.Index(last, "cumulative:")+len("cumulative:"):], "%f Gb/s %f Mpps", &gbps, &mpps); err != nil {
					t.Fatalf("tick %q: %v", last, err)
				}
				// The tick's cumulative rate is printed to 3 decimals (Mpps):
				// compare rates, loosely (the rate varies over a run).
				if final := float64(res.Ops) / elapsed / 1e6; final >= 0.01 && (mpps < 0.6*final || mpps > 1.4*final) {
					t.Errorf("last tick %q: %.3f Mpps cumulative; the run's rate was %.3f Mpps", last, mpps, final)
				}
				t.Logf("%d ticks; last: %s; final: %d ops in %.2f s", len(ticks), last, res.Ops, elapsed)
			})
		}
	}
}
