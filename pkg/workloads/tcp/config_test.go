package tcp

import (
	"strings"
	"testing"
	"time"
)

func TestNormalizeDefaults(t *testing.T) {
	for _, tc := range []struct {
		workload            string
		iters               int
		dur                 time.Duration
		wantSize, wantIters int
		wantWarmup          int
	}{
		{Lat, 0, 0, 2, 1000, 100},
		{Bw, 0, 0, 65536, 50000, 100},
		{Lat, 50, 0, 2, 50, 5},
		{Lat, 5, 0, 2, 5, 1},
		{Bw, 0, time.Second, 65536, 0, 100},
	} {
		c := Defaults()
		c.Workload, c.Iterations, c.Duration = tc.workload, tc.iters, tc.dur
		if err := c.Normalize(); err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if c.Size != tc.wantSize || c.Iterations != tc.wantIters || c.Warmup != tc.wantWarmup || c.IdleTimeout != 10*time.Second {
			t.Errorf("%+v: got size %d, iterations %d, warmup %d, idle %v", tc, c.Size, c.Iterations, c.Warmup, c.IdleTimeout)
		}
	}
}

func TestNormalizeErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"workload", func(c *Config) { c.Workload = "write_lat" }, `unknown workload "write_lat": choose tcp_lat or tcp_bw`},
		{"no workload", func(c *Config) { c.Workload = "" }, `unknown workload ""`},
		{"size", func(c *Config) { c.Size = -1 }, "size -1: must be 1 byte to 1 GiB"},
		{"huge size", func(c *Config) { c.Size = 2 << 30 }, "size 2147483648: must be 1 byte to 1 GiB"},
		{"n and D", func(c *Config) { c.Iterations, c.Duration = 10, time.Second }, "-n (iterations) and -D (duration) cannot go together"},
		{"iterations", func(c *Config) { c.Iterations = -5 }, "iterations -5: must be positive"},
		{"duration", func(c *Config) { c.Duration = -time.Second }, "duration -1s: must be positive"},
		{"warmup", func(c *Config) { c.Warmup = -2 }, "warmup -2: must be 0 or more"},
		{"idle", func(c *Config) { c.IdleTimeout = -time.Second }, "idle timeout -1s: must be positive"},
		{"data port", func(c *Config) { c.DataPort = 70000 }, "data port 70000: must be 0..65535"},
		{"cpu", func(c *Config) { c.CPU = -3 }, "cpu -3: must be -1 (no pinning) or a CPU number"},
		{"cpu absent", func(c *Config) { c.CPU = 100000 }, "cpu 100000: not among the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			c.Workload = Lat
			tc.edit(&c)
			err := c.Normalize()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestApplyPeerParams(t *testing.T) {
	c := Defaults()
	c.Workload, c.BusyPoll, c.Duration = Bw, true, 2*time.Second
	if err := c.Normalize(); err != nil {
		t.Fatal(err)
	}
	got := Defaults()
	if err := got.applyPeerParams(c.HandshakeParams()); err != nil {
		t.Fatal(err)
	}
	if got.Workload != Bw || !got.BusyPoll || got.Size != 65536 || got.Duration != 2*time.Second || got.Iterations != 0 || got.Warmup != 100 {
		t.Errorf("got %+v", got)
	}
	for key, val := range map[string]string{
		"transport": "RC", "completion": "event", "size": "x", "duration": "soon", "iterations": "-1", "workload": "read_bw",
	} {
		p := c.HandshakeParams()
		p[key] = val
		bad := Defaults()
		if err := bad.applyPeerParams(p); err == nil {
			t.Errorf("%s=%s accepted", key, val)
		}
	}
}
