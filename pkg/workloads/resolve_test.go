package workloads

import (
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/point"
)

func spec(workload string, mod func(*point.Spec)) point.Spec {
	s := point.NewSpec(workload)
	mod(&s)
	return s
}

func TestResolveRefuses(t *testing.T) {
	for _, tc := range []struct {
		s    point.Spec
		want string
	}{
		{spec("nosuch", func(*point.Spec) {}), `unknown workload "nosuch"`},
		{spec("read_bw", func(s *point.Spec) { s.Transport = "UD" }), "read_bw cannot run over UD"},
		{spec("atomic_lat", func(s *point.Spec) { s.Transport = "UC" }), "atomic_lat cannot run over UC"},
		{spec("tcp_lat", func(s *point.Spec) { s.Transport = "RC" }), "tcp_lat cannot run over RC"},
		{spec("write_lat", func(s *point.Spec) { s.Transport = "TCP" }), "write_lat cannot run over TCP"},
		{spec("atomic_bw", func(s *point.Spec) { s.Size = 16 }), "exactly 8 bytes"},
		{spec("write_bw", func(s *point.Spec) { s.Atomic = "fadd" }), "-A applies to atomic_lat, atomic_bw, not write_bw"},
		{spec("write_bw", func(s *point.Spec) { s.Iterations, s.Duration = 5, time.Second }), "cannot go together"},
		{spec("tcp_bw", func(s *point.Spec) { s.Iterations, s.Duration = 5, time.Second }), "cannot go together"},
		{spec("write_lat", func(s *point.Spec) { s.Bidir = true }), "-b applies to write_bw, read_bw, send_bw, not write_lat"},
		{spec("atomic_bw", func(s *point.Spec) { s.Bidir = true }), "-b applies to"},
		{spec("send_bw", func(s *point.Spec) { s.Imm = true }), "--imm applies to write_lat, write_bw"},
		{spec("write_lat", func(s *point.Spec) { s.QPs = 2 }), "-q applies to write_bw, read_bw, send_bw, atomic_bw, not write_lat"},
		{spec("tcp_lat", func(s *point.Spec) { s.QPs = 2 }), "-q applies to"},
		{spec("tcp_bw", func(s *point.Spec) { s.Threads = 2 }), "--threads applies to"},
		{spec("tcp_bw", func(s *point.Spec) { s.Bidir = true }), "-b applies to"},
		{spec("tcp_lat", func(s *point.Spec) { s.Validate = true }), "--validate applies to"},
		{spec("tcp_lat", func(s *point.Spec) { s.TxDepth = 4 }), "-t applies to"},
		{spec("write_bw", func(s *point.Spec) { s.QPs, s.Threads = 3, 2 }), "-q 3 --threads 2: the queue pairs must divide evenly"},
		{spec("write_bw", func(s *point.Spec) { s.TxDepth, s.CQMod = 10, 20 }), "-Q 20"},
		{spec("write_bw", func(s *point.Spec) { s.TxDepth, s.PostList = 10, 20 }), "-l 20"},
		{spec("read_lat", func(s *point.Spec) { s.CQMod = 4 }), "-Q must be 1"},
		{spec("send_bw", func(s *point.Spec) { s.Transport, s.Imm = "UD", true }), "--imm applies to"},
		{spec("write_bw", func(s *point.Spec) { s.Transport, s.RDMACM = "UC", true }), ""},
		{spec("send_bw", func(s *point.Spec) { s.Transport, s.RDMACM = "UD", true }), "--rdma-cm connects RC and UC"},
	} {
		_, _, err := Resolve(tc.s, nil)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", tc.s, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: Resolve = %v; want an error containing %q", tc.s, err, tc.want)
		}
	}
}

func TestResolveDefaults(t *testing.T) {
	for _, tc := range []struct {
		s    point.Spec
		dev  *DeviceLimits
		want point.Spec
		note string
	}{
		{spec("atomic_lat", func(*point.Spec) {}), nil,
			point.Spec{Workload: "atomic_lat", Transport: "RC", Size: 8, Atomic: "fadd", CQMod: 1, TxDepth: 64, RxDepth: 16, Iterations: 1000, Warmup: 100}, ""},
		{spec("write_bw", func(*point.Spec) {}), nil,
			point.Spec{Workload: "write_bw", Transport: "RC", Size: 65536, Iterations: 5000, Warmup: 100, TxDepth: 128, RxDepth: 512,
				CQMod: 100, PostList: 1, QPs: 1, Threads: 1}, ""},
		// The warm-up stays within 16 MiB of messages.
		{spec("write_bw", func(s *point.Spec) { s.Size, s.Duration = 1<<20, time.Second }), nil,
			point.Spec{Workload: "write_bw", Transport: "RC", Size: 1 << 20, Duration: time.Second, Warmup: 16, TxDepth: 128,
				RxDepth: 512, CQMod: 100, PostList: 1, QPs: 1, Threads: 1}, ""},
		{spec("tcp_bw", func(*point.Spec) {}), nil,
			point.Spec{Workload: "tcp_bw", Transport: "TCP", Size: 65536, Iterations: 50000, Warmup: 100}, ""},
		{spec("tcp_lat", func(s *point.Spec) { s.Iterations = 50 }), nil,
			point.Spec{Workload: "tcp_lat", Transport: "TCP", Size: 2, Iterations: 50, Warmup: 5}, ""},
		{spec("send_lat", func(s *point.Spec) { s.Transport = "UD" }), &DeviceLimits{ActiveMTU: 1024},
			point.Spec{Workload: "send_lat", Transport: "UD", Size: 1024, Iterations: 1000, Warmup: 100, TxDepth: 64, RxDepth: 16,
				CQMod: 32}, "send_lat over UD with no -s: 1024 bytes, the port's active MTU"},
		{spec("write_lat", func(s *point.Spec) { s.Events = true }), nil,
			point.Spec{Workload: "write_lat", Transport: "RC", Events: true, Imm: true, Size: 2, Iterations: 1000, Warmup: 100,
				TxDepth: 64, RxDepth: 16, CQMod: 32}, "RDMA WRITE with immediate (--imm)"},
	} {
		got, notes, err := tc.s.Resolve(tc.dev.Limits())
		if err != nil {
			t.Errorf("%+v: %v", tc.s, err)
			continue
		}
		if got.Spec != tc.want {
			t.Errorf("Resolve(%+v)\n got %+v\nwant %+v", tc.s, got, tc.want)
		}
		if tc.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], tc.note)) {
			t.Errorf("%s: notes %q, want one with %q", tc.s.Workload, notes, tc.note)
		}
		// Resolving is idempotent: a server resolves its client's spec.
		again, notes, err := got.Spec.Resolve(tc.dev.Limits())
		if err != nil || again != got || len(notes) != 0 {
			t.Errorf("%s resolved twice: %+v, %q, %v", tc.s.Workload, again, notes, err)
		}
	}
}

// TestResolveEveryWorkload: each workload resolves with its defaults, in
// every transport, and resolving again changes nothing.
func TestResolveEveryWorkload(t *testing.T) {
	for _, w := range catalog.All() {
		for _, tr := range w.Transports {
			s := spec(w.Name, func(s *point.Spec) { s.Transport = tr })
			got, _, err := Resolve(s, &DeviceLimits{ActiveMTU: 4096})
			if err != nil {
				t.Errorf("%s over %s: %v", w.Name, tr, err)
				continue
			}
			if again, _, err := Resolve(got.Spec, nil); err != nil || again != got {
				t.Errorf("%s over %s resolved twice: %+v, %v", w.Name, tr, again, err)
			}
		}
	}
}

func TestCheckDevice(t *testing.T) {
	lim := DeviceLimits{Name: "rxe0", MaxQPWR: 1024, MaxCQE: 4096, MaxMRSize: 1 << 20, MaxInline: 256, ActiveMTU: 1024, MaxRdAtom: 16, Atomics: true}
	for _, tc := range []struct {
		s    func(*point.Spec)
		l    func(*Local)
		want string
	}{
		{func(s *point.Spec) { s.Size = 2 << 20 }, nil, "max_mr_size"},
		{func(s *point.Spec) { s.TxDepth = 2048 }, nil, "max_qp_wr 1024"},
		{nil, func(l *Local) { l.Inline = 512 }, "maximum inline size 256"},
		{nil, func(l *Local) { l.MTU = 4096 }, "above the port's active MTU 1024"},
		{func(s *point.Spec) { s.Workload, s.Transport, s.Size = "send_bw", "UD", 2048 }, nil, "fit in one MTU (1024)"},
		{func(s *point.Spec) { s.QPs, s.TxDepth, s.RxDepth = 8, 512, 512 }, nil, "max_cqe"},
		{func(s *point.Spec) { s.Workload = "read_bw" }, func(l *Local) { l.Inline = 64 }, "carries no payload inline"},
		{func(s *point.Spec) { s.PostAPI = "ex" }, nil, "rxe0 cannot create queue pairs for the extended post API for write_bw"},
		{func(s *point.Spec) { s.PostAPI, s.RDMACM = "ex", true }, nil, "rdma_cm (-R) creates queue pairs for ibv_post_send only"},
	} {
		s, l := point.NewSpec("write_bw"), DefaultLocal()
		if tc.s != nil {
			tc.s(&s)
		}
		if tc.l != nil {
			tc.l(&l)
		}
		r, _, err := Resolve(s, nil)
		if err != nil {
			t.Fatalf("Resolve: %v", err)
		}
		w, _ := catalog.Lookup(r.Workload)
		if err := CheckDevice(r, l, w, lim); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckDevice = %v; want %q", err, tc.want)
		}
	}
	r, _, _ := point.NewSpec("atomic_bw").Resolve(hostLimits)
	w, _ := catalog.Lookup("atomic_bw")
	if err := CheckDevice(r, DefaultLocal(), w, DeviceLimits{Name: "x", MaxQPWR: 1024, MaxCQE: 1 << 16, MaxMRSize: 1 << 30, ActiveMTU: 1024}); err == nil || !strings.Contains(err.Error(), "atomic") {
		t.Errorf("atomics on a device without them: %v", err)
	}
}

func TestLocalCheck(t *testing.T) {
	for _, tc := range []struct {
		mod  func(*Local)
		want string
	}{
		{func(l *Local) { l.MTU = 1500 }, "--mtu 1500"},
		{func(l *Local) { l.SL = 16 }, "--sl 16"},
		{func(l *Local) { l.TClass = 256 }, "--tclass 256"},
		{func(l *Local) { l.IBPort = 0 }, "-i 0: device port must be 1..255"},
		{func(l *Local) { l.GIDIndex = -2 }, "-x -2"},
		{func(l *Local) { l.CPU = -5 }, "--cpu -5"},
		{func(l *Local) { l.IdleTimeout = 0 }, "--idle-timeout 0s: must be at least 100ms"},
		{func(l *Local) { l.IdleTimeout = -time.Second }, "--idle-timeout -1s"},
		{func(l *Local) { l.ReportInterval = -time.Second }, "--report-interval -1s"},
		{func(l *Local) { l.ReportInterval = time.Millisecond }, "must be at least 10ms"},
	} {
		l := DefaultLocal()
		tc.mod(&l)
		if err := l.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check = %v; want %q", err, tc.want)
		}
	}
	if err := DefaultLocal().Check(); err != nil {
		t.Error(err)
	}
	l := DefaultLocal()
	l.CPU = 4095
	if err := l.CheckCPUs(1); err == nil || !strings.Contains(err.Error(), "--cpu 4095: cpu 4095 not among") {
		t.Errorf("CheckCPUs: %v", err)
	}
	l.CPU = 0
	if err := l.CheckCPUs(1); err != nil {
		t.Errorf("cpu 0: %v", err)
	}
}

func TestPlans(t *testing.T) {
	for _, tc := range []struct {
		w    string
		mod  func(*point.Spec)
		r    role
		want plan
	}{
		{"write_lat", func(*point.Spec) {}, client, plan{ping: true, halve: true}},
		{"write_lat", func(*point.Spec) {}, server, plan{pong: true, halve: true}},
		{"write_lat", func(s *point.Spec) { s.Events = true }, server, plan{pong: true, halve: true, postRecvs: true}},
		{"read_lat", func(*point.Spec) {}, server, plan{}},
		{"send_bw", func(*point.Spec) {}, server, plan{recv: true, postRecvs: true}},
		{"send_bw", func(s *point.Spec) { s.Bidir = true }, client, plan{send: true, recv: true, postRecvs: true}},
		{"write_bw", func(*point.Spec) {}, server, plan{}},
		{"write_bw", func(s *point.Spec) { s.Imm = true }, server, plan{recv: true, postRecvs: true}},
		{"tcp_lat", func(*point.Spec) {}, client, plan{ping: true, halve: true, postRecvs: true}},
		{"tcp_lat", func(*point.Spec) {}, server, plan{pong: true, halve: true, postRecvs: true}},
		{"tcp_bw", func(*point.Spec) {}, client, plan{send: true}},
		{"tcp_bw", func(*point.Spec) {}, server, plan{recv: true, postRecvs: true}},
	} {
		s, _, err := spec(tc.w, tc.mod).Resolve(hostLimits)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := catalog.Lookup(tc.w)
		if got := planFor(w, s, tc.r); got != tc.want {
			t.Errorf("%s %s: plan %+v, want %+v", tc.w, tc.r, got, tc.want)
		}
	}
}

func TestBaseline(t *testing.T) {
	for _, w := range catalog.All() {
		b, ok := catalog.Baseline(w.Name)
		if ok != (w.Family == catalog.RDMA) {
			t.Errorf("%s: baseline %q, %t", w.Name, b, ok)
			continue
		}
		if !ok {
			continue
		}
		bw, err := catalog.Lookup(b)
		if err != nil || bw.Family != catalog.TCP || bw.Kind != w.Kind {
			t.Errorf("%s: baseline %s is not a TCP workload of the same kind", w.Name, b)
		}
	}
}

// TestResolveSRQDepth: with --use-srq a stream's shared receive queue
// holds every QP's sends in flight by default; a smaller -r is refused
// where the transport drops what finds no receive (UC, UD), kept for RC.
func TestResolveSRQDepth(t *testing.T) {
	s := point.NewSpec("send_bw")
	s.SRQ, s.QPs, s.Threads = true, 8, 2
	r, _, err := Resolve(s, nil)
	if err != nil || r.RxDepth != 4*128 {
		t.Fatalf("default: rx depth %d, %v; want 512 (4 QPs per thread x 128)", r.RxDepth, err)
	}
	s.Threads = 1
	if r, _, err = Resolve(s, nil); err != nil || r.RxDepth != 8*128 {
		t.Fatalf("8 QPs on a thread: rx depth %d, %v; want 1024", r.RxDepth, err)
	}
	if again, _, err := Resolve(r.Spec, nil); err != nil || again != r {
		t.Errorf("resolving again changed it: %+v, %v", again, err)
	}
	s.RxDepth = 64
	if _, _, err := Resolve(s, nil); err != nil {
		t.Errorf("RC with a small -r: %v (RNR retries recover)", err)
	}
	s.Transport = "UC"
	if _, _, err := Resolve(s, nil); err == nil || !strings.Contains(err.Error(), "must hold every QP's sends in flight (8 QPs per thread x -t 128 = 1024)") {
		t.Errorf("UC with a small -r: %v", err)
	}
}

// hostLimits are this host's limits with no device.
var hostLimits = (*DeviceLimits)(nil).Limits()
