package workloads

import (
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	good := map[string]int{"2": 2, "64": 64, "4K": 4096, "4k": 4096, "1M": 1 << 20, "8MiB": 8 << 20, "1G": 1 << 30, "512B": 512, " 16 ": 16}
	for in, want := range good {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	bad := map[string]string{"0": "at least 1 byte", "": "want a number", "-4": "want a number", "12Q": `"12Q"`,
		"K": "want a number", "2G": "larger than 1G", "99999999999999999999": "want a number", "1.5K": `"1.5K"`}
	for in, want := range bad {
		if _, err := ParseSize(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSize(%q) = %v; want an error containing %q", in, err, want)
		}
	}
	if _, err := ParseSizes("2,64,4K,zz,1M"); err == nil || !strings.Contains(err.Error(), `"zz"`) {
		t.Errorf("ParseSizes with a bad token: %v", err)
	}
	s, err := SweepSizes(2, 8<<20)
	if err != nil || len(s) != 23 || s[0] != 2 || s[22] != 8<<20 {
		t.Errorf("SweepSizes(2, 8M) = %v, %v", s, err)
	}
	if _, err := SweepSizes(100, 10); err == nil {
		t.Error("SweepSizes(100, 10) accepted")
	}
}

func cfg(mod func(*Config)) Config {
	c := Defaults()
	c.Workload = "write_bw"
	mod(&c)
	return c
}

func TestNormalize(t *testing.T) {
	bad := []struct {
		c    Config
		want string
	}{
		{cfg(func(c *Config) { c.Workload = "nosuch" }), `unknown workload "nosuch"`},
		{cfg(func(c *Config) { c.Workload, c.Transport = "read_bw", "UD" }), "read_bw cannot run over UD"},
		{cfg(func(c *Config) { c.Workload, c.Transport = "atomic_lat", "UC" }), "atomic_lat cannot run over UC"},
		{cfg(func(c *Config) { c.Transport = "XRC" }), "cannot run over XRC"},
		{cfg(func(c *Config) { c.Workload, c.Size = "atomic_bw", 16 }), "exactly 8 bytes"},
		{cfg(func(c *Config) { c.Workload, c.Atomic = "atomic_bw", "swap" }), `--atomic "swap"`},
		{cfg(func(c *Config) { c.Atomic = "fadd" }), "--atomic applies to"},
		{cfg(func(c *Config) { c.Size = -1 }), "at least 1 byte"},
		{cfg(func(c *Config) { c.Iterations = -3 }), "iterations -3"},
		{cfg(func(c *Config) { c.Iterations, c.Duration = 5, time.Second }), "cannot go together"},
		{cfg(func(c *Config) { c.Workload, c.Bidir = "write_lat", true }), "--bidir applies to"},
		{cfg(func(c *Config) { c.Workload, c.Bidir = "atomic_bw", true }), "--bidir applies to"},
		{cfg(func(c *Config) { c.Workload, c.Imm = "send_bw", true }), "--imm"},
		{cfg(func(c *Config) { c.Workload, c.QPs = "write_lat", 2 }), "must be 1"},
		{cfg(func(c *Config) { c.QPs = 0 }), "-q 0"},
		{cfg(func(c *Config) { c.Threads = 0 }), "--threads 0"},
		{cfg(func(c *Config) { c.TxDepth, c.CQMod = 10, 20 }), "-Q 20"},
		{cfg(func(c *Config) { c.TxDepth, c.PostList = 10, 20 }), "-l 20"},
		{cfg(func(c *Config) { c.Workload, c.Inline = "read_bw", 64 }), "cannot carry inline"},
		{cfg(func(c *Config) { c.MTU = 1500 }), "--mtu 1500"},
		{cfg(func(c *Config) { c.Workload, c.Transport, c.MTU, c.Size = "send_bw", "UD", 1024, 2048 }), "fit in one MTU"},
		{cfg(func(c *Config) { c.SL = 16 }), "--sl 16"},
		{cfg(func(c *Config) { c.TClass = 256 }), "--tclass 256"},
		{cfg(func(c *Config) { c.Workload, c.CQMod = "read_lat", 4 }), "-Q must be 1"},
	}
	for _, tc := range bad {
		c := tc.c
		if _, err := c.Normalize(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: Normalize = %v; want an error containing %q", tc.c, err, tc.want)
		}
	}
	good := []Config{
		cfg(func(c *Config) {}),
		cfg(func(c *Config) { c.Workload, c.Transport = "send_lat", "ud" }),
		cfg(func(c *Config) { c.Workload = "atomic_lat" }),
		cfg(func(c *Config) { c.Bidir, c.QPs, c.Threads, c.PostList = true, 4, 2, 8 }),
		cfg(func(c *Config) { c.Duration = 2 * time.Second }),
		cfg(func(c *Config) { c.Workload, c.Imm, c.Events = "write_lat", true, true }),
	}
	for _, c := range good {
		w, err := c.Normalize()
		if err != nil {
			t.Errorf("%+v: %v", c, err)
			continue
		}
		if c.Size <= 0 || c.TxDepth <= 0 || c.CQMod <= 0 || c.CQMod > c.TxDepth || c.Warmup < 0 {
			t.Errorf("%s: defaults not filled: %+v", w.Name, c)
		}
	}
	c := cfg(func(c *Config) { c.Workload = "atomic_lat" })
	c.Normalize()
	if c.Size != 8 || c.Atomic != "fadd" || c.CQMod != 1 || c.Iterations != 1000 || c.Warmup != 100 {
		t.Errorf("atomic_lat defaults: %+v", c)
	}
}

func TestCheckDevice(t *testing.T) {
	lim := DeviceLimits{Name: "rxe0", MaxQPWR: 1024, MaxCQE: 4096, MaxMRSize: 1 << 20, MaxInline: 256, ActiveMTU: 1024, MaxRdAtom: 16, Atomics: true}
	cases := []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.Size = 2 << 20 }, "max_mr_size"},
		{func(c *Config) { c.TxDepth = 2048 }, "max_qp_wr 1024"},
		{func(c *Config) { c.Inline = 512 }, "maximum inline size 256"},
		{func(c *Config) { c.MTU = 4096 }, "above the port's active MTU 1024"},
		{func(c *Config) { c.Workload, c.Transport, c.Size = "send_bw", "UD", 2048 }, "fit in one MTU (1024)"},
		{func(c *Config) { c.QPs, c.TxDepth, c.RxDepth = 8, 512, 512 }, "max_cqe"},
	}
	for _, tc := range cases {
		c := cfg(tc.mod)
		w, err := c.Normalize()
		if err != nil {
			t.Fatalf("Normalize: %v", err)
		}
		if err := c.CheckDevice(w, lim); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckDevice = %v; want %q", err, tc.want)
		}
	}
	c := cfg(func(c *Config) { c.Workload = "atomic_bw" })
	w, _ := c.Normalize()
	if err := c.CheckDevice(w, DeviceLimits{Name: "x", MaxQPWR: 1024, MaxCQE: 1 << 16, MaxMRSize: 1 << 30, ActiveMTU: 1024}); err == nil || !strings.Contains(err.Error(), "atomic") {
		t.Errorf("atomics on a device without them: %v", err)
	}
}

func TestParamsRoundTrip(t *testing.T) {
	c := cfg(func(c *Config) {
		c.Bidir, c.QPs, c.Duration, c.Validate, c.More = true, 3, 1500*time.Millisecond, true, true
	})
	c.Normalize()
	var s Config
	if err := s.applyPeerParams(c.peerParams()); err != nil {
		t.Fatal(err)
	}
	if s.Workload != c.Workload || s.Size != c.Size || s.QPs != 3 || !s.Bidir || s.Duration != c.Duration || !s.Validate || !s.More || s.CQMod != c.CQMod {
		t.Errorf("round trip: %+v\nfrom %+v", s, c)
	}
	p := c.peerParams()
	p["size"] = "big"
	if err := s.applyPeerParams(p); err == nil || !strings.Contains(err.Error(), `size="big"`) {
		t.Errorf("bad peer size: %v", err)
	}
	if got := c.ParamsOf([]string{"size", "nonsense", "more"}); len(got) != 1 || got["size"] != "65536" {
		t.Errorf("ParamsOf = %v", got)
	}
}

func TestPlans(t *testing.T) {
	for _, tc := range []struct {
		w    string
		mod  func(*Config)
		r    role
		want plan
	}{
		{"write_lat", func(*Config) {}, client, plan{ping: true, halve: true}},
		{"write_lat", func(*Config) {}, server, plan{pong: true, halve: true}},
		{"write_lat", func(c *Config) { c.Events = true }, server, plan{pong: true, halve: true, postRecvs: true}},
		{"read_lat", func(*Config) {}, server, plan{}},
		{"send_bw", func(*Config) {}, server, plan{recv: true, postRecvs: true}},
		{"send_bw", func(c *Config) { c.Bidir = true }, client, plan{send: true, recv: true, postRecvs: true}},
		{"write_bw", func(*Config) {}, server, plan{}},
		{"write_bw", func(c *Config) { c.Imm = true }, server, plan{recv: true, postRecvs: true}},
	} {
		c := cfg(tc.mod)
		c.Workload = tc.w
		w, err := c.Normalize()
		if err != nil {
			t.Fatal(err)
		}
		if got := planFor(w, &c, tc.r); got != tc.want {
			t.Errorf("%s %s: plan %+v, want %+v", tc.w, tc.r, got, tc.want)
		}
	}
}

func TestPeakTracker(t *testing.T) {
	p := newPeakTracker(2, 1000)
	// 10 ops of 1000 B every 1000 ns = 80 Gb/s, then a faster stretch.
	pts := []point{{0, 0}, {1000, 10}, {2000, 20}, {2500, 30}, {3000, 40}, {5000, 50}}
	for _, x := range pts {
		p.add(x.ns, x.ops)
	}
	// Best 2-completion window: 2000..3000, 20 ops in 1000 ns: 160 Gb/s.
	if got := p.gbps(); got != 160 {
		t.Errorf("peak %v Gb/s, want 160", got)
	}
	short := newPeakTracker(5, 1000)
	short.add(0, 0)
	short.add(10, 10)
	if short.gbps() != 0 {
		t.Errorf("peak of a run shorter than one window: %v", short.gbps())
	}
}

func TestPatterns(t *testing.T) {
	b := make([]byte, 300)
	fillPattern(b, patternSeed(client, false))
	if firstMismatch(b, patternSeed(client, false)) != -1 {
		t.Fatal("pattern does not check against itself")
	}
	if firstMismatch(b, patternSeed(server, false)) != 0 || patternSeed(client, true) == patternSeed(client, false) {
		t.Fatal("patterns of the two sides or regions must differ")
	}
	b[123] ^= 1
	if err := check(b, patternSeed(client, false), "payload"); err == nil || !strings.Contains(err.Error(), "byte 123") {
		t.Fatalf("check = %v", err)
	}
}
