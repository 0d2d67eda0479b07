package workloads

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/point"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// kind is how a parameter is written on the command line and the wire.
type kind int

const (
	kindString     kind = iota // the workload name
	kindEnum                   // one of choices, case-insensitive
	kindInt                    // an integer in min..max
	kindSize                   // a byte count with K, M or G (ParseSize)
	kindSeconds                // seconds on the command line, a Go duration on the wire
	kindBool                   // a switch
	kindCompletion             // -e: "event" on the wire, "poll" when unset
)

// Param is one shared parameter, declared once: its key in the handshake
// and in results, its flag, its bounds and the workloads it applies to.
// A value given for a workload it does not apply to is refused.
type Param struct {
	Key   string // handshake and JSON key
	Flag  string // long flag; "" for the workload, given as an argument
	Short string // perftest's letter, where it has one
	Usage string

	kind     kind
	min, max int64
	choices  []string
	unset    string // the wire form of the unset value
	list     bool   // the command line may give several values, for a sweep
	field    func(*Spec) any
	applies  func(Workload) bool // nil: every workload
}

func rdma(w Workload) bool       { return w.Family == RDMA }
func rdmaStream(w Workload) bool { return w.Family == RDMA && !w.Latency() }
func rdmaBidir(w Workload) bool  { return rdmaStream(w) && w.Op != OpAtomic }
func rdmaWrite(w Workload) bool  { return w.Family == RDMA && w.Op == OpWrite }
func rdmaAtomic(w Workload) bool { return w.Family == RDMA && w.Op == OpAtomic }
func rdmaSend(w Workload) bool   { return w.Family == RDMA && w.Op == OpSend }

// params is the table. The order is the order of --help.
var params = []*Param{
	{Key: "workload", kind: kindString, field: func(s *Spec) any { return &s.Workload }},
	{Key: "transport", Flag: "connection", Short: "c", kind: kindEnum, choices: []string{"RC", "UC", "UD", "TCP"},
		Usage: "transport: RC, UC or UD (RDMA; default RC); TCP workloads run over TCP", field: func(s *Spec) any { return &s.Transport }},
	{Key: "size", Flag: "size", Short: "s", kind: kindSize,
		Usage: "message size in bytes, with K, M or G (default 2 for latency, 64K for bandwidth, 8 for atomics, the MTU for UD)", field: func(s *Spec) any { return &s.Size }},
	{Key: "iterations", Flag: "iters", Short: "n", kind: kindInt, min: 1, max: 1_000_000_000,
		Usage: "timed iterations (default 1000 for latency, 5000 for RDMA bandwidth, 50000 for tcp_bw)", field: func(s *Spec) any { return &s.Iterations }},
	{Key: "duration", Flag: "duration", Short: "D", kind: kindSeconds,
		Usage: "run for this many seconds (0.001 to 86400) instead of a count of iterations", field: func(s *Spec) any { return &s.Duration }},
	{Key: "warmup", Flag: "warmup", kind: kindInt, min: 0, max: 1_000_000, unset: "-1",
		Usage: "untimed warm-up iterations (default 10% of -n, at most 100, and at most 16 MiB of messages)", field: func(s *Spec) any { return &s.Warmup }},
	{Key: "completion", Flag: "events", Short: "e", kind: kindCompletion, unset: "poll",
		Usage: "wait for completion events (RDMA) or block in the kernel (TCP) instead of busy polling", field: func(s *Spec) any { return &s.Events }},
	{Key: "tx_depth", Flag: "tx-depth", Short: "t", kind: kindInt, min: 1, max: 65536, applies: rdma,
		Usage: "send queue depth: work requests in flight per QP (default 128; 64 for latency)", field: func(s *Spec) any { return &s.TxDepth }},
	{Key: "rx_depth", Flag: "rx-depth", Short: "r", kind: kindInt, min: 1, max: 65536, applies: rdma,
		Usage: "receive queue depth (default 512; 16 for latency)", field: func(s *Spec) any { return &s.RxDepth }},
	{Key: "cq_mod", Flag: "cq-mod", Short: "Q", kind: kindInt, min: 1, max: 65536, applies: rdma,
		Usage: "signal one completion every N work requests (default 100 for bandwidth, 32 for write and send latency)", field: func(s *Spec) any { return &s.CQMod }},
	{Key: "post_list", Flag: "post-list", Short: "l", kind: kindInt, min: 1, max: 65536, applies: rdmaStream,
		Usage: "work requests per ibv_post_send call (default 1)", field: func(s *Spec) any { return &s.PostList }},
	{Key: "qps", Flag: "qp", Short: "q", kind: kindInt, min: 1, max: 1024, applies: rdmaStream,
		Usage: "queue pairs, spread evenly over the threads (default 1)", field: func(s *Spec) any { return &s.QPs }},
	{Key: "threads", Flag: "threads", kind: kindInt, min: 1, max: 256, applies: rdmaStream,
		Usage: "worker threads, each with its own CQ and QPs (default 1)", field: func(s *Spec) any { return &s.Threads }},
	{Key: "bidir", Flag: "bidir", Short: "b", kind: kindBool, applies: rdmaBidir,
		Usage: "bidirectional bandwidth", field: func(s *Spec) any { return &s.Bidir }},
	{Key: "imm", Flag: "imm", kind: kindBool, applies: rdmaWrite,
		Usage: "RDMA WRITE with immediate", field: func(s *Spec) any { return &s.Imm }},
	{Key: "atomic", Flag: "atomic", Short: "A", kind: kindEnum, choices: []string{"fadd", "cswap"}, applies: rdmaAtomic,
		Usage: "atomic operation: fadd or cswap (default fadd)", field: func(s *Spec) any { return &s.Atomic }},
	{Key: "validate", Flag: "validate", kind: kindBool, applies: rdma,
		Usage: "pattern the payloads and check every byte after the run", field: func(s *Spec) any { return &s.Validate }},
	{Key: "rdma_cm", Flag: "rdma-cm", Short: "R", kind: kindBool, applies: rdma,
		Usage: "connect queue pairs with rdma_cm (librdmacm), RC and UC", field: func(s *Spec) any { return &s.RDMACM }},
	{Key: "hugepages", Flag: "use-hugepages", kind: kindBool, applies: rdma,
		Usage: "back the registered buffers with 2 MiB huge pages (refused when too few are free: see /proc/sys/vm/nr_hugepages)",
		field: func(s *Spec) any { return &s.HugePages }},
	{Key: "post_api", Flag: "post-api", kind: kindEnum, choices: []string{"ex", "classic"}, applies: rdma,
		Usage: "post work requests through ex (the extended API, ibv_wr_* on ibv_qp_ex, as perftest does) or classic (ibv_post_send); default ex where the device supports it, else classic (the JSON's params.post_api says which)",
		field: func(s *Spec) any { return &s.PostAPI }},
	{Key: "srq", Flag: "use-srq", kind: kindBool, applies: rdmaSend,
		Usage: "receive through one shared receive queue per thread, -r deep, instead of one receive queue per QP",
		field: func(s *Spec) any { return &s.SRQ }},
	{Key: "mcast", Flag: "mcg", Short: "g", kind: kindBool, applies: rdmaSend,
		Usage: "send to multicast groups, over UD (the default transport with it) on RoCE: every receiving queue pair joins a group of its own, chosen per run, which the peer sends to (the JSON's params.mcast_groups)",
		field: func(s *Spec) any { return &s.Mcast }},
	{Key: "rate", Flag: "rate", kind: kindInt, min: 1, max: 1_000_000_000, applies: rdma, list: true,
		Usage: "operations per second on a fixed schedule: open-loop latency, measured from each operation's due time, or a rate limit (bandwidth); run takes a list, measured after the closed loop, for a latency-against-load curve",
		field: func(s *Spec) any { return &s.Rate }},
}

// Params returns the shared parameters that have a flag, in order.
func Params() []*Param {
	var out []*Param
	for _, p := range params {
		if p.Flag != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParamByFlag finds the shared parameter a flag sets.
func ParamByFlag(flag string) (*Param, bool) {
	for _, p := range params {
		if p.Flag != "" && p.Flag == flag {
			return p, true
		}
	}
	return nil, false
}

// IsBool reports whether the flag is a switch (given without a value).
func (p *Param) IsBool() bool { return p.kind == kindBool || p.kind == kindCompletion }

// Applies reports whether the parameter means anything for w.
func (p *Param) Applies(w Workload) bool { return p.applies == nil || p.applies(w) }

// flagName is how messages name the flag: "-s" or "--validate".
func (p *Param) flagName() string {
	if p.Short != "" {
		return "-" + p.Short
	}
	return "--" + p.Flag
}

// get returns the parameter's value in s, in its wire form.
func (p *Param) get(s *Spec) string {
	switch v := p.field(s).(type) {
	case *string:
		return *v
	case *int:
		return strconv.Itoa(*v)
	case *time.Duration:
		return v.String()
	case *bool:
		if p.kind == kindCompletion {
			return map[bool]string{false: "poll", true: "event"}[*v]
		}
		return strconv.FormatBool(*v)
	}
	panic("workloads: parameter " + p.Key + " has a field of an unknown type")
}

// unsetWire is the wire form of the parameter's unset value.
func (p *Param) unsetWire(s *Spec) string {
	if p.unset != "" {
		return p.unset
	}
	switch p.field(s).(type) {
	case *int:
		return "0"
	case *time.Duration:
		return "0s"
	case *bool:
		return "false"
	}
	return ""
}

// isSet reports whether s gives the parameter a value of its own.
func (p *Param) isSet(s *Spec) bool { return p.get(s) != p.unsetWire(s) }

// Only returns s without the parameters that do not apply to w: for a
// suite, whose flags mean something for some of its workloads only.
func (s Spec) Only(w Workload) Spec {
	r := s
	for _, p := range params {
		if !p.Applies(w) {
			_ = p.setWire(&r, p.unsetWire(&r)) // an unset value always parses
		}
	}
	r.Workload = w.Name
	return r
}

// setWire sets the parameter in s from its wire form (a peer's handshake).
func (p *Param) setWire(s *Spec, v string) error {
	bad := func() error { return fmt.Errorf("peer parameter %s=%q is malformed", p.Key, v) }
	switch f := p.field(s).(type) {
	case *string:
		if p.kind == kindEnum && v != "" && !slices.Contains(p.choices, v) {
			return bad()
		}
		*f = v
	case *int:
		n, err := strconv.Atoi(v)
		if err != nil {
			return bad()
		}
		*f = n
	case *time.Duration:
		d, err := time.ParseDuration(v)
		if err != nil {
			return bad()
		}
		*f = d
	case *bool:
		if p.kind == kindCompletion {
			if v != "poll" && v != "event" {
				return bad()
			}
			*f = v == "event"
			return nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return bad()
		}
		*f = b
	}
	return nil
}

// setFlag sets the parameter in s from a command-line value, within its
// bounds; the error says what is allowed.
func (p *Param) setFlag(s *Spec, v string) error {
	switch f := p.field(s).(type) {
	case *string:
		if p.kind != kindEnum {
			*f = v
			return nil
		}
		for _, c := range p.choices {
			if strings.EqualFold(v, c) {
				*f = c
				return nil
			}
		}
		return fmt.Errorf("choose %s", strings.Join(p.choices, ", "))
	case *int:
		if p.kind == kindSize {
			n, err := point.ParseSize(v)
			if err != nil {
				return err
			}
			*f = n
			return nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < p.min || n > p.max {
			return fmt.Errorf("want a whole number from %d to %d", p.min, p.max)
		}
		*f = int(n)
	case *time.Duration:
		secs, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(secs) || secs < 0.001 || secs > 86400 {
			return fmt.Errorf("want seconds from 0.001 to 86400")
		}
		*f = time.Duration(secs * float64(time.Second))
	case *bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
		*f = b
	}
	return nil
}

// Value binds the parameter's flag to s: it satisfies pflag.Value.
func (p *Param) Value(s *Spec) *FlagValue { return &FlagValue{p: p, s: s} }

// FlagValue is a parameter's command-line value, bound to a Spec.
type FlagValue struct {
	p    *Param
	s    *Spec
	list []string // the values of a list, when one was given
}

// String returns the value as given, "" while unset (so that --help
// prints the defaults the usage describes, not sentinels).
func (v *FlagValue) String() string {
	if v == nil || v.s == nil || !v.p.isSet(v.s) {
		return ""
	}
	if v.list != nil {
		return strings.Join(v.list, ",")
	}
	if v.p.kind == kindSeconds {
		return strconv.FormatFloat(v.s.Duration.Seconds(), 'f', -1, 64)
	}
	return v.p.get(v.s)
}

// Set parses a command-line value: for a parameter that takes a list,
// comma-separated values, each checked, none twice; the Spec gets the
// first (Sweep gives them all).
func (v *FlagValue) Set(s string) error {
	if !v.p.list || !strings.Contains(s, ",") {
		v.list = nil
		return v.p.setFlag(v.s, s)
	}
	parts := strings.Split(s, ",")
	seen := map[string]bool{}
	for i, part := range parts {
		part = strings.TrimSpace(part)
		if err := v.p.setFlag(v.s, part); err != nil {
			return fmt.Errorf("%q in the list: %w", part, err)
		}
		w := v.p.get(v.s)
		if seen[w] {
			return fmt.Errorf("%s is in the list twice", w)
		}
		seen[w], parts[i] = true, part
	}
	v.list = parts
	return v.p.setFlag(v.s, parts[0])
}

// IsList reports whether several values were given.
func (v *FlagValue) IsList() bool { return len(v.list) > 1 }

// Sweep returns base once per value of the list given, in order, each with
// that value set; nil when one value (or none) was given.
func (v *FlagValue) Sweep(base Spec) []Spec {
	if !v.IsList() {
		return nil
	}
	out := make([]Spec, 0, len(v.list))
	for _, part := range v.list {
		s := base
		_ = v.p.setFlag(&s, part) // checked by Set
		out = append(out, s)
	}
	return out
}

// Type names the value's kind for --help.
func (v *FlagValue) Type() string {
	return [...]string{"string", "string", "int", "size", "seconds", "bool", "bool"}[v.p.kind]
}

// Encode returns s's shared parameters keyed as in the handshake.
func (s Spec) Encode() map[string]string {
	m := make(map[string]string, len(params))
	for _, p := range params {
		m[p.Key] = p.get(&s)
	}
	return m
}

// DecodeSpec parses a peer's shared parameters: every key must be there.
func DecodeSpec(m map[string]string) (Spec, error) {
	var s Spec
	for _, p := range params {
		v, ok := m[p.Key]
		if !ok {
			return Spec{}, fmt.Errorf("peer parameters lack %s", p.Key)
		}
		if err := p.setWire(&s, v); err != nil {
			return Spec{}, err
		}
	}
	return s, nil
}

// Explicit returns the wire form of the parameters named by keys, for a
// server that refuses clients asking for other values (keys that are not
// shared parameters are ignored).
func (s Spec) Explicit(keys []string) map[string]string {
	all := s.Encode()
	out := map[string]string{}
	for _, k := range keys {
		if v, ok := all[k]; ok {
			out[k] = v
		}
	}
	return out
}

// Echo copies s into the parameters a result reports.
func (s Spec) echo(p *report.Params) {
	p.Workload, p.Transport, p.Completion, p.SizeBytes = s.Workload, s.Transport, s.Completion(), s.Size
	p.Iterations, p.DurationS, p.Warmup = s.Iterations, s.Duration.Seconds(), s.Warmup
	p.TxDepth, p.RxDepth, p.CQMod, p.PostList = s.TxDepth, s.RxDepth, s.CQMod, s.postList()
	p.QPs, p.Threads, p.Bidir, p.Imm, p.Atomic = max(s.QPs, 1), s.threads(), s.Bidir, s.Imm, s.Atomic
	p.Validate, p.RDMACM, p.Rate, p.SRQ, p.Mcast = s.Validate, s.RDMACM, s.Rate, s.SRQ, s.Mcast
	if w, _ := Lookup(s.Workload); w.Family == RDMA {
		p.PageBytes = s.pageBytes()
	}
}

// NotReached is the result of a point the run stopped before measuring:
// its parameters as asked, no figure, status partial with why. A document
// cut short then lists every point it was asked for, so that no view reads
// a shorter sweep as a complete one.
func NotReached(s Spec, why string) *report.Result {
	w, _ := Lookup(s.Workload)
	res := &report.Result{Kind: w.Kind, Status: report.StatusPartial, Reason: why}
	s.echo(&res.Params)
	return res
}
