package catalog

// Role is what a parameter is to a point: every row of the table says,
// so that no parameter reaches a document without that decision.
type Role int

const (
	// RoleUndecided is no role: a row left at it fails the tests.
	RoleUndecided Role = iota
	// RolePoint names the point itself (workload, transport, completion,
	// size) or its device: never listed as a parameter that differs.
	RolePoint
	// RoleIdentity changes what is measured: two results differing in
	// it are different points, which compare keeps apart.
	RoleIdentity
	// RoleSetting is a way of running one measurement, or a record of
	// it (page_bytes, srq, post_api, iterations): comparing them is what
	// they are for, and compare lists a parameter whose values differ
	// between the sides.
	RoleSetting
)

// ValueKind is how a shared parameter is written on the command line
// and the wire.
type ValueKind int

const (
	ValueString     ValueKind = iota // the workload name
	ValueEnum                        // one of Choices, case-insensitive
	ValueInt                         // an integer in Min..Max
	ValueSize                        // a byte count with K, M or G
	ValueSeconds                     // seconds on the command line, a Go duration on the wire
	ValueBool                        // a switch
	ValueCompletion                  // -e: "event" on the wire, "poll" when unset
)

// Param is one parameter of a point, declared once: its flag, its key on
// the wire and in the document, its role, its absent and usual values and
// the workloads it applies to. The flag set, the handshake, the
// document's params and compare's identity all come from this table.
type Param struct {
	// Key is the handshake key of a parameter the two sides share ("qps");
	// "" for one only the document has (the MTU the path took).
	Key string
	// Doc is the key in a result's params ("size_bytes"); "" when the
	// value reaches the document only through another row (hugepages, as
	// page_bytes).
	Doc string
	// Flag is the long flag, "" for none (the workload, an argument);
	// Short is perftest's letter, where it has one.
	Flag, Short, Usage string

	Kind     ValueKind
	Min, Max int64    // ValueInt's bounds
	Choices  []string // ValueEnum's values
	// Unset is the wire form of the unset value, where it is not the
	// type's zero ("-1" for the warm-up's default).
	Unset string
	// List lets the command line give several values, for a sweep.
	List bool
	// Applies says which workloads the parameter means anything for; nil
	// is every workload. A value given for another is refused.
	Applies func(Workload) bool

	Role Role
	// Absent is the value a document written before the parameter
	// existed means by lacking it ("false": a switch was off); "" when
	// there is none.
	Absent string
	// Usual are the values a point's description leaves out (a parameter
	// with another value is named: "qps=4"); "" is a document lacking it.
	Usual []string
}

func rdma(w Workload) bool       { return w.Family == RDMA }
func rdmaStream(w Workload) bool { return w.Family == RDMA && !w.Latency() }
func rdmaBidir(w Workload) bool  { return rdmaStream(w) && w.Op != OpAtomic }
func rdmaWrite(w Workload) bool  { return w.Family == RDMA && w.Op == OpWrite }
func rdmaAtomic(w Workload) bool { return w.Family == RDMA && w.Op == OpAtomic }
func rdmaSend(w Workload) bool   { return w.Family == RDMA && w.Op == OpSend }

// rdmaLoadable is a latency workload with a bandwidth counterpart that
// loaders can stream beside it (LoaderOf).
func rdmaLoadable(w Workload) bool { _, ok := LoaderOf(w); return ok }

var one = []string{"", "0", "1"} // a count whose usual value is one

// params is the table: the shared parameters in the order of --help, then
// the ones only the document has. Identity parameters are named in this
// order in a point's description.
var params = []Param{
	{Key: "workload", Doc: "workload", Kind: ValueString, Role: RolePoint},
	{Key: "transport", Doc: "transport", Flag: "connection", Short: "c", Kind: ValueEnum, Choices: []string{"RC", "UC", "UD", "TCP"}, Role: RolePoint,
		Usage: "transport: RC, UC or UD (RDMA; default RC); TCP workloads run over TCP"},
	{Key: "size", Doc: "size_bytes", Flag: "size", Short: "s", Kind: ValueSize, Role: RolePoint,
		Usage: "message size in bytes, with K, M or G (default 2 for latency, 64K for bandwidth, 8 for atomics, the MTU for UD)"},
	{Key: "iterations", Doc: "iterations", Flag: "iters", Short: "n", Kind: ValueInt, Min: 1, Max: 1_000_000_000, Role: RoleSetting,
		Usage: "timed iterations (default 1000 for latency, 5000 for RDMA bandwidth, 50000 for tcp_bw)"},
	{Key: "duration", Doc: "duration_s", Flag: "duration", Short: "D", Kind: ValueSeconds, Role: RoleSetting,
		Usage: "run for this many seconds (0.001 to 86400) instead of a count of iterations"},
	{Key: "warmup", Doc: "warmup", Flag: "warmup", Kind: ValueInt, Min: 0, Max: 1_000_000, Unset: "-1", Role: RoleSetting,
		Usage: "untimed warm-up iterations (default 10% of -n, at most 100, and at most 16 MiB of messages)"},
	{Key: "completion", Doc: "completion", Flag: "events", Short: "e", Kind: ValueCompletion, Unset: "poll", Role: RolePoint,
		Usage: "wait for completion events (RDMA) or block in the kernel (TCP) instead of busy polling"},
	{Key: "tx_depth", Doc: "tx_depth", Flag: "tx-depth", Short: "t", Kind: ValueInt, Min: 1, Max: 65536, Applies: rdma, Role: RoleIdentity,
		Usage: "send queue depth: work requests in flight per QP (default 128; 64 for latency)"},
	{Key: "rx_depth", Doc: "rx_depth", Flag: "rx-depth", Short: "r", Kind: ValueInt, Min: 1, Max: 65536, Applies: rdma, Role: RoleIdentity,
		Usage: "receive queue depth (default 512; 16 for latency)"},
	{Key: "cq_mod", Doc: "cq_mod", Flag: "cq-mod", Short: "Q", Kind: ValueInt, Min: 1, Max: 65536, Applies: rdma, Role: RoleIdentity,
		Usage: "signal one completion every N work requests (default 100 for bandwidth, 32 for write and send latency)"},
	{Key: "post_list", Doc: "post_list", Flag: "post-list", Short: "l", Kind: ValueInt, Min: 1, Max: 65536, Applies: rdmaStream, Role: RoleIdentity, Usual: one,
		Usage: "work requests per ibv_post_send call (default 1)"},
	{Key: "qps", Doc: "qps", Flag: "qp", Short: "q", Kind: ValueInt, Min: 1, Max: 1024, Applies: rdmaStream, Role: RoleIdentity, Usual: one,
		Usage: "queue pairs, spread evenly over the threads (default 1)"},
	{Key: "threads", Doc: "threads", Flag: "threads", Kind: ValueInt, Min: 1, Max: 256, Applies: rdmaStream, Role: RoleIdentity, Usual: one,
		Usage: "worker threads, each with its own CQ and QPs (default 1)"},
	{Key: "bidir", Doc: "bidir", Flag: "bidir", Short: "b", Kind: ValueBool, Applies: rdmaBidir, Role: RoleIdentity, Absent: "false", Usual: []string{"", "false"},
		Usage: "bidirectional bandwidth"},
	{Key: "imm", Doc: "imm", Flag: "imm", Kind: ValueBool, Applies: rdmaWrite, Role: RoleIdentity, Absent: "false", Usual: []string{"", "false"},
		Usage: "RDMA WRITE with immediate"},
	{Key: "atomic", Doc: "atomic", Flag: "atomic", Short: "A", Kind: ValueEnum, Choices: []string{"fadd", "cswap"}, Applies: rdmaAtomic, Role: RoleIdentity, Usual: []string{"", "fadd"},
		Usage: "atomic operation: fadd or cswap (default fadd)"},
	{Key: "validate", Doc: "validate", Flag: "validate", Kind: ValueBool, Applies: rdma, Role: RoleSetting,
		Usage: "pattern the payloads and check every byte after the run"},
	{Key: "rdma_cm", Doc: "rdma_cm", Flag: "rdma-cm", Short: "R", Kind: ValueBool, Applies: rdma, Role: RoleIdentity, Absent: "false", Usual: []string{"", "false"},
		Usage: "connect queue pairs with rdma_cm (librdmacm), RC and UC"},
	{Key: "hugepages", Flag: "use-hugepages", Kind: ValueBool, Applies: rdma, Role: RoleSetting,
		Usage: "back the registered buffers with 2 MiB huge pages (refused when too few are free: see /proc/sys/vm/nr_hugepages)"},
	{Key: "post_api", Doc: "post_api", Flag: "post-api", Kind: ValueEnum, Choices: []string{"ex", "classic"}, Applies: rdma, Role: RoleSetting,
		Usage: "post work requests through ex (the extended API, ibv_wr_* on ibv_qp_ex, as perftest does) or classic (ibv_post_send); default ex where the device supports it, else classic (the JSON's params.post_api says which)"},
	{Key: "srq", Doc: "srq", Flag: "use-srq", Kind: ValueBool, Applies: rdmaSend, Role: RoleSetting,
		Usage: "receive through one shared receive queue per thread, -r deep, instead of one receive queue per QP"},
	{Key: "mcast", Doc: "mcast", Flag: "mcg", Short: "g", Kind: ValueBool, Applies: rdmaSend, Role: RoleSetting,
		Usage: "send to multicast groups, over UD (the default transport with it) on RoCE: every receiving queue pair joins a group of its own, chosen per run, which the peer sends to (the JSON's params.mcast_groups)"},
	{Key: "rate", Doc: "rate", Flag: "rate", Kind: ValueInt, Min: 1, Max: 1_000_000_000, Applies: rdma, List: true, Role: RoleIdentity, Absent: "0", Usual: []string{"", "0"},
		Usage: "operations per second on a fixed schedule: open-loop latency, measured from each operation's due time, or a rate limit (bandwidth); run takes a list, measured after the closed loop, for a latency-against-load curve"},
	{Key: "loaders", Doc: "loaders", Flag: "loaders", Kind: ValueInt, Min: 0, Max: 64, Applies: rdmaLoadable, List: true, Role: RoleIdentity, Absent: "0", Usual: []string{"", "0"},
		Usage: "loaded latency: this many loader QPs, each on a thread of its own, stream the workload's bandwidth counterpart (write_lat: write_bw, send_lat: send_bw, read_lat: read_bw) on the same device while the latency is measured open-loop at --rate; run takes a list (0,1,2,...), one point a level, for a loaded-latency curve and its knee"},

	// What the engine chose or the device gave, recorded in the document.
	{Doc: "inline_bytes", Role: RoleIdentity},
	{Doc: "mtu", Role: RoleIdentity},
	{Doc: "mcast_groups", Role: RoleSetting},
	{Doc: "page_bytes", Role: RoleSetting},
	{Doc: "gid_index", Role: RoleSetting},
	{Doc: "device", Role: RolePoint},
	{Doc: "port", Role: RoleSetting},
	{Doc: "extra", Role: RoleSetting},
}

// IdentityCap bounds the identity parameters: a point's key holds their
// values in an array of this size, so that keys stay comparable.
const IdentityCap = 24

// Params returns the table's rows, in order.
func Params() []Param { return params }

// IdentityParams are the document keys of the identity parameters, in
// the table's order.
func IdentityParams() []string { return docKeys(RoleIdentity) }

// PointParams are the document keys that name the point itself
// (workload, transport, completion, size_bytes) or its device.
func PointParams() []string { return docKeys(RolePoint) }

func docKeys(r Role) []string {
	var out []string
	for _, p := range params {
		if p.Role == r && p.Doc != "" {
			out = append(out, p.Doc)
		}
	}
	return out
}

// LookupParam returns the parameter whose document key is doc.
func LookupParam(doc string) (Param, bool) {
	for _, p := range params {
		if p.Doc == doc {
			return p, true
		}
	}
	return Param{}, false
}
