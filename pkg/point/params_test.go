package point

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/catalog"
)

// TestEverySpecFieldIsDeclared: each Spec field is one parameter of the
// table, with a unique key and flag, so the handshake, the results and the
// command line cannot drift apart.
func TestEverySpecFieldIsDeclared(t *testing.T) {
	var s Spec
	specFields := map[uintptr]string{}
	rt := reflect.TypeOf(s)
	for i := range rt.NumField() {
		specFields[rt.Field(i).Offset] = rt.Field(i).Name
	}
	base := reflect.ValueOf(&s).Pointer()
	keys, flags, shorts := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, p := range params {
		if p.field(&s) == nil {
			t.Errorf("parameter %s has no Spec field in fields", p.Key)
			continue
		}
		off := reflect.ValueOf(p.field(&s)).Pointer() - base
		name, ok := specFields[off]
		if !ok {
			t.Errorf("parameter %s points at no Spec field", p.Key)
		}
		delete(specFields, off)
		if keys[p.Key] {
			t.Errorf("key %s declared twice", p.Key)
		}
		keys[p.Key] = true
		if p.Flag == "" && name != "Workload" {
			t.Errorf("%s (%s) has no flag", p.Key, name)
		}
		if p.Flag != "" && (flags[p.Flag] || (p.Short != "" && shorts[p.Short])) {
			t.Errorf("flag --%s / -%s declared twice", p.Flag, p.Short)
		}
		flags[p.Flag], shorts[p.Short] = true, true
		if got, ok := ParamByFlag(p.Flag); p.Flag != "" && (!ok || got != p) {
			t.Errorf("ParamByFlag(%q) does not find %s", p.Flag, p.Key)
		}
	}
	for _, name := range specFields {
		t.Errorf("Spec.%s is not in the parameter table", name)
	}
	for key := range fields {
		if !keys[key] {
			t.Errorf("fields binds %s, which is no shared parameter of catalog's table", key)
		}
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	s := Spec{Workload: "send_bw", Transport: "UC", Events: true, Size: 4096, Duration: 1500 * time.Millisecond,
		Warmup: 0, TxDepth: 64, RxDepth: 256, CQMod: 8, PostList: 4, QPs: 4, Threads: 2, Bidir: true,
		Validate: true, RDMACM: true}
	m := s.Encode()
	if len(m) != len(params) || m["completion"] != "event" || m["duration"] != "1.5s" || m["warmup"] != "0" {
		t.Errorf("encoded %v", m)
	}
	got, err := DecodeSpec(m)
	if err != nil || got != s {
		t.Fatalf("round trip: %+v, %v\nwant %+v", got, err, s)
	}
	for _, bad := range []struct{ key, val, want string }{
		{"size", "big", `size="big" is malformed`},
		{"completion", "maybe", `completion="maybe"`},
		{"duration", "3", `duration="3"`},
		{"bidir", "yes!", `bidir="yes!"`},
	} {
		m := s.Encode()
		m[bad.key] = bad.val
		if _, err := DecodeSpec(m); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s=%s: %v, want %q", bad.key, bad.val, err, bad.want)
		}
	}
	m = s.Encode()
	delete(m, "qps")
	if _, err := DecodeSpec(m); err == nil || !strings.Contains(err.Error(), "lack qps") {
		t.Errorf("missing key: %v", err)
	}
	if got := s.Explicit([]string{"size", "nonsense"}); len(got) != 1 || got["size"] != "4096" {
		t.Errorf("Explicit = %v", got)
	}
}

// TestFlagValues: a value the user gives is checked against its bounds
// when the flag is parsed, never replaced.
func TestFlagValues(t *testing.T) {
	set := func(flag, v string) (Spec, error) {
		s := NewSpec("write_bw")
		p, ok := ParamByFlag(flag)
		if !ok {
			t.Fatalf("no flag %s", flag)
		}
		return s, p.Value(&s).Set(v)
	}
	for _, bad := range []struct{ flag, val, want string }{
		{"iters", "0", "from 1 to"},
		{"iters", "-5", "from 1 to"},
		{"iters", "1e3", "whole number"},
		{"duration", "0", "0.001 to 86400"},
		{"duration", "1e-12", "0.001 to 86400"},
		{"duration", "1e12", "0.001 to 86400"},
		{"duration", "NaN", "0.001 to 86400"},
		{"duration", "Inf", "0.001 to 86400"},
		{"warmup", "-5", "from 0 to"},
		{"warmup", "99999999", "from 0 to"},
		{"qp", "0", "from 1 to 1024"},
		{"threads", "300", "from 1 to 256"},
		{"size", "0", "at least 1 byte"},
		{"size", "12Q", `"12Q"`},
		{"connection", "XRC", "choose RC, UC, UD, TCP"},
		{"atomic", "swap", "choose fadd, cswap"},
	} {
		if _, err := set(bad.flag, bad.val); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("--%s %s: %v, want %q", bad.flag, bad.val, err, bad.want)
		}
	}
	if s, err := set("duration", "2.5"); err != nil || s.Duration != 2500*time.Millisecond {
		t.Errorf("-D 2.5: %v %v", s.Duration, err)
	}
	if s, err := set("connection", "ud"); err != nil || s.Transport != "UD" {
		t.Errorf("-c ud: %q %v", s.Transport, err)
	}
	if s, err := set("warmup", "0"); err != nil || s.Warmup != 0 {
		t.Errorf("--warmup 0: %d %v", s.Warmup, err)
	}
	s := NewSpec("write_bw")
	p, _ := ParamByFlag("warmup")
	if v := p.Value(&s).String(); v != "" {
		t.Errorf("an unset flag prints %q, want nothing", v)
	}
}

// TestOnly: a suite's flags apply to the workloads they mean something for.
func TestOnly(t *testing.T) {
	s := NewSpec("")
	s.QPs, s.Validate, s.Events, s.Size = 4, true, true, 64
	tcp, _ := catalog.Lookup("tcp_bw")
	got := s.Only(tcp)
	if got.QPs != 0 || got.Validate || !got.Events || got.Size != 64 || got.Workload != "tcp_bw" || got.Warmup != -1 {
		t.Errorf("Only(tcp_bw) = %+v", got)
	}
	bw, _ := catalog.Lookup("write_bw")
	if got := s.Only(bw); got.QPs != 4 || !got.Validate {
		t.Errorf("Only(write_bw) = %+v", got)
	}
}
