// Package perftestflags is the table of perftest's flags (ib_*_bw,
// ib_*_lat) and what rdma-bench makes of each, and the translation of a
// command line written with perftest's spellings into rdma-bench's.
package perftestflags

import (
	"slices"
	"strconv"
	"strings"
)

// Action is what rdma-bench does with one of perftest's flags.
type Action int

const (
	// Same: rdma-bench has the spelling, with perftest's meaning.
	Same Action = iota
	// Alias: rewritten to rdma-bench's flag, its value translated.
	Alias
	// Noop: accepted and ignored, with a note saying why it changes
	// nothing.
	Noop
	// Hint: refused as an unknown flag, saying what rdma-bench offers
	// instead.
	Hint
)

func (a Action) String() string {
	return [...]string{"same", "alias", "no-op", "hint"}[a]
}

// Flag is one of perftest's flags (ib_*_bw, ib_*_lat) and what
// rdma-bench makes of it.
type Flag struct {
	Short  string // perftest's letter; "" for none
	Long   string // perftest's long name
	Value  bool   // takes a value
	Action Action
	To     string            // Same, Alias: rdma-bench's long flag
	Values map[string]string // Alias: perftest's value -> rdma-bench's (any case); others pass as given
	Set    string            // Alias of a switch: the value it gives rdma-bench's flag
	Why    string            // Noop: why it changes nothing; Hint: what to use instead; else a difference, if any
	// Collides names rdma-bench's flag of the same spelling and another
	// meaning; Looks tells perftest's values of it, so that a refused
	// value there gets this row's hint.
	Collides string
	Looks    func(v string) bool
}

func isNumber(v string) bool { _, err := strconv.Atoi(v); return err == nil }

const (
	notSupported = "not supported"
	unitsValues  = "bandwidth, message_rate, latency"
)

// Table is the table of perftest's flags: every flag of perftest 4.5-0.17's ib_*_bw
// and ib_*_lat --help (TestPerftestTableCoversHelp), in its order.
var Table = []Flag{
	{Short: "a", Long: "all", Action: Same, To: "all", Why: "2 B to 8 MiB (2^23), as perftest; --sweep-min and --sweep-max narrow it"},
	{Short: "A", Long: "atomic_type", Value: true, Action: Alias, To: "atomic",
		Values: map[string]string{"FETCH_AND_ADD": "fadd", "CMP_AND_SWAP": "cswap"}},
	{Short: "b", Long: "bidirectional", Action: Alias, To: "bidir"},
	{Short: "c", Long: "connection", Value: true, Action: Same, To: "connection", Why: "RC, UC or UD; XRC, DC and SRD are not supported"},
	{Long: "log_dci_streams", Value: true, Action: Hint, Why: "DC is " + notSupported},
	{Long: "log_active_dci_streams", Value: true, Action: Hint, Why: "DC is " + notSupported},
	{Long: "aes_xts", Action: Hint, Why: "encryption (AES-XTS) is " + notSupported},
	{Long: "encrypt_on_tx", Action: Hint, Why: "encryption (AES-XTS) is " + notSupported},
	{Long: "sig_before", Action: Hint, Why: "encryption (AES-XTS) is " + notSupported},
	{Long: "aes_block_size", Value: true, Action: Hint, Why: "encryption (AES-XTS) is " + notSupported},
	{Long: "data_enc_keys_number", Value: true, Action: Hint, Why: "encryption (AES-XTS) is " + notSupported},
	{Long: "kek_path", Value: true, Action: Hint, Why: "encryption (AES-XTS) is " + notSupported},
	{Long: "credentials_path", Value: true, Action: Hint, Why: "encryption (AES-XTS) is " + notSupported},
	{Long: "data_enc_key_app_path", Value: true, Action: Hint, Why: "encryption (AES-XTS) is " + notSupported},
	{Short: "C", Long: "report-cycles", Action: Hint, Why: "latency is always in microseconds (--clock chooses the timestamps' source)"},
	{Short: "d", Long: "ib-dev", Value: true, Action: Same, To: "ib-dev"},
	{Short: "D", Long: "duration", Value: true, Action: Same, To: "duration", Why: "seconds, fractions too (0.2)"},
	{Short: "e", Long: "events", Action: Same, To: "events"},
	{Short: "X", Long: "vector", Value: true, Action: Hint, Why: "choosing the completion vector is " + notSupported + " (-e uses vector 0)"},
	{Short: "f", Long: "margin", Value: true, Action: Hint, Why: "no margins: use --warmup N for untimed iterations before a -D run"},
	{Short: "F", Long: "CPU-freq", Action: Noop, Why: "rdma-bench prints no cpufreq warning to silence"},
	{Short: "g", Long: "mcg", Action: Same, To: "mcg", Why: "send_lat and send_bw over UD (the default with it; RC and UC are refused); every receiving QP has a group of its own, chosen per run"},
	{Short: "h", Long: "help", Action: Same, To: "help"},
	{Short: "H", Long: "report-histogram", Action: Hint, Why: "use -o hgrm for the percentile distribution, or --samples FILE for every sample"},
	{Short: "i", Long: "ib-port", Value: true, Action: Same, To: "ib-port"},
	{Short: "I", Long: "inline_size", Value: true, Action: Alias, To: "inline-size"},
	{Short: "l", Long: "post_list", Value: true, Action: Alias, To: "post-list"},
	{Long: "recv_post_list", Value: true, Action: Hint, Why: "posting lists of receives is " + notSupported + " (-l posts lists of sends)"},
	{Short: "L", Long: "hop_limit", Value: true, Action: Hint, Why: "raw Ethernet QPs are " + notSupported},
	{Short: "m", Long: "mtu", Value: true, Action: Same, To: "mtu"},
	{Short: "M", Long: "MGID", Value: true, Action: Hint, Why: "choosing the multicast group is " + notSupported + ": -g chooses one per run for every receiving QP"},
	{Short: "n", Long: "iters", Value: true, Action: Same, To: "iters"},
	{Short: "N", Long: "noPeak", Action: Noop, Why: "the peak costs no per-iteration time stamps in rdma-bench: it is always reported"},
	{Short: "o", Long: "outs", Value: true, Action: Hint, Collides: "output", Looks: isNumber,
		Why: "rdma-bench always allows the device's maximum of outstanding reads and atomics (perftest's default); rdma-bench's -o is the output format"},
	{Short: "O", Long: "dualport", Action: Hint, Why: "dual-port runs are " + notSupported},
	{Short: "p", Long: "port", Value: true, Action: Same, To: "port"},
	{Short: "q", Long: "qp", Value: true, Action: Same, To: "qp"},
	{Short: "Q", Long: "cq-mod", Value: true, Action: Same, To: "cq-mod"},
	{Short: "r", Long: "rx-depth", Value: true, Action: Same, To: "rx-depth"},
	{Short: "R", Long: "rdma_cm", Action: Alias, To: "rdma-cm"},
	{Short: "s", Long: "size", Value: true, Action: Same, To: "size", Why: "K, M or G suffixes too (64K)"},
	{Short: "S", Long: "sl", Value: true, Action: Alias, To: "sl"},
	{Short: "t", Long: "tx-depth", Value: true, Action: Same, To: "tx-depth"},
	{Short: "T", Long: "tos", Value: true, Action: Hint, Why: "use --tclass N (0..255), which sets the traffic class with or without -R"},
	{Short: "u", Long: "qp-timeout", Value: true, Action: Hint, Why: "rdma-bench uses perftest's default QP timeout, 14 (about 67 ms), and cannot change it"},
	{Short: "U", Long: "report-unsorted", Action: Hint, Why: "use --samples FILE for every latency sample"},
	{Short: "V", Long: "version", Action: Hint, Why: "use rdma-bench version"},
	{Short: "w", Long: "limit_bw", Value: true, Action: Hint, Why: "no pass/fail limit on a run: gate results with rdma-bench gate or compare --fail-on"},
	{Short: "W", Long: "report-counters", Value: true, Action: Hint, Why: "the port's counters are read around every run (--counters, on by default): -o json has their deltas"},
	{Short: "x", Long: "gid-index", Value: true, Action: Same, To: "gid-index"},
	{Short: "y", Long: "limit_msgrate", Value: true, Action: Hint, Why: "no pass/fail limit on a run: gate results with rdma-bench gate or compare --fail-on"},
	{Short: "z", Long: "com_rdma_cm", Action: Hint, Why: "rdma-bench exchanges over its own TCP control connection; -R connects the QPs with rdma_cm"},
	{Long: "out_json", Action: Hint, Why: "use -o json (to standard output), or --save for a JSON file under results/"},
	{Long: "out_json_file", Value: true, Action: Hint, Why: "use -o json --output-file FILE"},
	{Long: "cpu_util", Action: Noop, Why: "both sides' CPU use is always measured and shown"},
	{Long: "dlid", Value: true, Action: Hint, Why: "setting the destination LID is " + notSupported + ": it comes from the peer"},
	{Long: "dont_xchg_versions", Action: Hint, Why: "the control protocol is versioned and always exchanged"},
	{Long: "force-link", Value: true, Action: Hint, Why: "forcing the link layer is " + notSupported + ": it is the port's"},
	{Long: "ipv6", Action: Hint, Why: "choose an IPv6 GID with -x INDEX (rdma-bench devices lists them)"},
	{Long: "source_ip", Value: true, Action: Hint, Why: "choosing the source IP is " + notSupported + ": -R uses the address of the port's GID (-x)"},
	{Long: "mmap", Value: true, Action: Hint, Why: "mmap'd (P2P) buffers are " + notSupported},
	{Long: "mmap-offset", Value: true, Action: Hint, Why: "mmap'd (P2P) buffers are " + notSupported},
	{Long: "mr_per_qp", Action: Hint, Why: "one memory region per QP is " + notSupported},
	{Long: "odp", Action: Same, To: "odp", Why: "refused where the device lacks on-demand paging, naming what; not implemented (untested) where it has it"},
	{Long: "output", Value: true, Action: Hint, Collides: "output", Looks: func(v string) bool { return slices.Contains(strings.Split(unitsValues, ", "), v) },
		Why: "rdma-bench's --output is the format: -o perftest for perftest's columns, -o json or -o csv to read one figure (perftest's --output=" + unitsValues + ")"},
	{Long: "use_old_post_send", Action: Alias, To: "post-api", Set: "classic"},
	{Long: "perform_warm_up", Action: Noop, Why: "rdma-bench always warms up (--warmup N sets how much)"},
	{Long: "pkey_index", Value: true, Action: Hint, Why: "choosing the P_Key index is " + notSupported + " (index 0)"},
	{Long: "report-both", Action: Hint, Why: "separate RX and TX figures of -b are " + notSupported},
	{Long: "report_gbits", Action: Noop, Why: "Gb/s is always shown (-o perftest prints Gb/sec columns when it is given)"},
	{Long: "report-per-port", Action: Hint, Why: "dual-port runs are " + notSupported},
	{Long: "reversed", Action: Hint, Why: "reversing the direction is " + notSupported + ": run the client on the other host"},
	{Long: "run_infinitely", Action: Hint, Why: "runs have an end: use -D SECONDS with --report-interval 1s for live figures"},
	{Long: "retry_count", Value: true, Action: Hint, Why: "rdma-bench uses perftest's default retry count, 7, and cannot change it"},
	{Long: "tclass", Value: true, Action: Same, To: "tclass"},
	{Long: "use_hugepages", Action: Alias, To: "use-hugepages"},
	{Long: "wait_destroy", Value: true, Action: Hint, Why: "waiting before destroying the resources is " + notSupported},
	{Long: "disable_pcie_relaxed", Action: Noop, Why: "rdma-bench never asks for PCIe relaxed ordering"},
	{Long: "burst_size", Value: true, Action: Hint, Why: "use --rate OPS: a software rate limit in operations per second"},
	{Long: "typical_pkt_size", Value: true, Action: Hint, Why: "use --rate OPS: a software rate limit in operations per second"},
	{Long: "rate_limit", Value: true, Action: Hint, Why: "use --rate OPS: a software rate limit in operations per second"},
	{Long: "rate_units", Value: true, Action: Hint, Why: "use --rate OPS: a software rate limit in operations per second"},
	{Long: "rate_limit_type", Value: true, Action: Hint, Why: "use --rate OPS: a software rate limit in operations per second"},
	{Long: "inline_recv", Value: true, Action: Hint, Why: "inline receive is " + notSupported},
	{Long: "use-srq", Action: Same, To: "use-srq"},
	{Long: "latency_gap", Value: true, Action: Hint, Why: "use --rate OPS: operations on a fixed schedule, latency measured from each one's due time"},
}

// Long and Short find a row by perftest's spelling.
func Long(name string) *Flag {
	for i := range Table {
		if Table[i].Long == name {
			return &Table[i]
		}
	}
	return nil
}

func Short(c string) *Flag {
	for i := range Table {
		if Table[i].Short == c {
			return &Table[i]
		}
	}
	return nil
}

// Collision is the hint for a value rdma-bench's flag refused
// that is one of perftest's for its flag of the same spelling (-o 16:
// perftest's outstanding reads); "" when there is none.
func Collision(flag, value string) string {
	for _, e := range Table {
		if e.Collides == flag && e.Looks(value) {
			return "perftest's " + e.Spelling() + " " + value + "? " + e.Why
		}
	}
	return ""
}

// Spelling is how perftest writes the flag: "-o/--outs" or "--odp".
func (e *Flag) Spelling() string {
	if e.Short != "" {
		return "-" + e.Short + "/--" + e.Long
	}
	return "--" + e.Long
}

// Translate is perftest's value v as rdma-bench's.
func (e *Flag) Translate(v string) string {
	for from, to := range e.Values {
		if strings.EqualFold(v, from) {
			return to
		}
	}
	return v
}
