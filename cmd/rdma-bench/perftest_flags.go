package main

import (
	"slices"
	"strconv"
	"strings"
)

// ptAction is what rdma-bench does with one of perftest's flags.
type ptAction int

const (
	// ptSame: rdma-bench has the spelling, with perftest's meaning.
	ptSame ptAction = iota
	// ptAlias: rewritten to rdma-bench's flag, its value translated.
	ptAlias
	// ptNoop: accepted and ignored, with a note saying why it changes
	// nothing.
	ptNoop
	// ptHint: refused as an unknown flag, saying what rdma-bench offers
	// instead.
	ptHint
)

func (a ptAction) String() string {
	return [...]string{"same", "alias", "no-op", "hint"}[a]
}

// perftestFlag is one of perftest's flags (ib_*_bw, ib_*_lat) and what
// rdma-bench makes of it.
type perftestFlag struct {
	short  string // perftest's letter; "" for none
	long   string // perftest's long name
	value  bool   // takes a value
	action ptAction
	to     string            // ptSame, ptAlias: rdma-bench's long flag
	values map[string]string // ptAlias: perftest's value -> rdma-bench's (any case); others pass as given
	set    string            // ptAlias of a switch: the value it gives rdma-bench's flag
	why    string            // ptNoop: why it changes nothing; ptHint: what to use instead; else a difference, if any
	// collides names rdma-bench's flag of the same spelling and another
	// meaning; looks tells perftest's values of it, so that a refused
	// value there gets this row's hint.
	collides string
	looks    func(v string) bool
}

func isNumber(v string) bool { _, err := strconv.Atoi(v); return err == nil }

const (
	notSupported = "not supported"
	unitsValues  = "bandwidth, message_rate, latency"
)

// perftestFlags is the table: every flag of perftest 4.5-0.17's ib_*_bw
// and ib_*_lat --help (TestPerftestTableCoversHelp), in its order.
var perftestFlags = []perftestFlag{
	{short: "a", long: "all", action: ptSame, to: "all", why: "2 B to 8 MiB (2^23), as perftest; --sweep-min and --sweep-max narrow it"},
	{short: "A", long: "atomic_type", value: true, action: ptAlias, to: "atomic",
		values: map[string]string{"FETCH_AND_ADD": "fadd", "CMP_AND_SWAP": "cswap"}},
	{short: "b", long: "bidirectional", action: ptAlias, to: "bidir"},
	{short: "c", long: "connection", value: true, action: ptSame, to: "connection", why: "RC, UC or UD; XRC, DC and SRD are not supported"},
	{long: "log_dci_streams", value: true, action: ptHint, why: "DC is " + notSupported},
	{long: "log_active_dci_streams", value: true, action: ptHint, why: "DC is " + notSupported},
	{long: "aes_xts", action: ptHint, why: "encryption (AES-XTS) is " + notSupported},
	{long: "encrypt_on_tx", action: ptHint, why: "encryption (AES-XTS) is " + notSupported},
	{long: "sig_before", action: ptHint, why: "encryption (AES-XTS) is " + notSupported},
	{long: "aes_block_size", value: true, action: ptHint, why: "encryption (AES-XTS) is " + notSupported},
	{long: "data_enc_keys_number", value: true, action: ptHint, why: "encryption (AES-XTS) is " + notSupported},
	{long: "kek_path", value: true, action: ptHint, why: "encryption (AES-XTS) is " + notSupported},
	{long: "credentials_path", value: true, action: ptHint, why: "encryption (AES-XTS) is " + notSupported},
	{long: "data_enc_key_app_path", value: true, action: ptHint, why: "encryption (AES-XTS) is " + notSupported},
	{short: "C", long: "report-cycles", action: ptHint, why: "latency is always in microseconds (--clock chooses the timestamps' source)"},
	{short: "d", long: "ib-dev", value: true, action: ptSame, to: "ib-dev"},
	{short: "D", long: "duration", value: true, action: ptSame, to: "duration", why: "seconds, fractions too (0.2)"},
	{short: "e", long: "events", action: ptSame, to: "events"},
	{short: "X", long: "vector", value: true, action: ptHint, why: "choosing the completion vector is " + notSupported + " (-e uses vector 0)"},
	{short: "f", long: "margin", value: true, action: ptHint, why: "no margins: use --warmup N for untimed iterations before a -D run"},
	{short: "F", long: "CPU-freq", action: ptNoop, why: "rdma-bench prints no cpufreq warning to silence"},
	{short: "g", long: "mcg", action: ptSame, to: "mcg", why: "send_lat and send_bw over UD (the default with it; RC and UC are refused); every receiving QP has a group of its own, chosen per run"},
	{short: "h", long: "help", action: ptSame, to: "help"},
	{short: "H", long: "report-histogram", action: ptHint, why: "use -o hgrm for the percentile distribution, or --samples FILE for every sample"},
	{short: "i", long: "ib-port", value: true, action: ptSame, to: "ib-port"},
	{short: "I", long: "inline_size", value: true, action: ptAlias, to: "inline-size"},
	{short: "l", long: "post_list", value: true, action: ptAlias, to: "post-list"},
	{long: "recv_post_list", value: true, action: ptHint, why: "posting lists of receives is " + notSupported + " (-l posts lists of sends)"},
	{short: "L", long: "hop_limit", value: true, action: ptHint, why: "raw Ethernet QPs are " + notSupported},
	{short: "m", long: "mtu", value: true, action: ptSame, to: "mtu"},
	{short: "M", long: "MGID", value: true, action: ptHint, why: "choosing the multicast group is " + notSupported + ": -g chooses one per run for every receiving QP"},
	{short: "n", long: "iters", value: true, action: ptSame, to: "iters"},
	{short: "N", long: "noPeak", action: ptNoop, why: "the peak costs no per-iteration time stamps in rdma-bench: it is always reported"},
	{short: "o", long: "outs", value: true, action: ptHint, collides: "output", looks: isNumber,
		why: "rdma-bench always allows the device's maximum of outstanding reads and atomics (perftest's default); rdma-bench's -o is the output format"},
	{short: "O", long: "dualport", action: ptHint, why: "dual-port runs are " + notSupported},
	{short: "p", long: "port", value: true, action: ptSame, to: "port"},
	{short: "q", long: "qp", value: true, action: ptSame, to: "qp"},
	{short: "Q", long: "cq-mod", value: true, action: ptSame, to: "cq-mod"},
	{short: "r", long: "rx-depth", value: true, action: ptSame, to: "rx-depth"},
	{short: "R", long: "rdma_cm", action: ptAlias, to: "rdma-cm"},
	{short: "s", long: "size", value: true, action: ptSame, to: "size", why: "K, M or G suffixes too (64K)"},
	{short: "S", long: "sl", value: true, action: ptAlias, to: "sl"},
	{short: "t", long: "tx-depth", value: true, action: ptSame, to: "tx-depth"},
	{short: "T", long: "tos", value: true, action: ptHint, why: "use --tclass N (0..255), which sets the traffic class with or without -R"},
	{short: "u", long: "qp-timeout", value: true, action: ptHint, why: "rdma-bench uses perftest's default QP timeout, 14 (about 67 ms), and cannot change it"},
	{short: "U", long: "report-unsorted", action: ptHint, why: "use --samples FILE for every latency sample"},
	{short: "V", long: "version", action: ptHint, why: "use rdma-bench version"},
	{short: "w", long: "limit_bw", value: true, action: ptHint, why: "no pass/fail limit on a run: gate results with rdma-bench gate or compare --fail-on"},
	{short: "W", long: "report-counters", value: true, action: ptHint, why: "the port's counters are read around every run (--counters, on by default): -o json has their deltas"},
	{short: "x", long: "gid-index", value: true, action: ptSame, to: "gid-index"},
	{short: "y", long: "limit_msgrate", value: true, action: ptHint, why: "no pass/fail limit on a run: gate results with rdma-bench gate or compare --fail-on"},
	{short: "z", long: "com_rdma_cm", action: ptHint, why: "rdma-bench exchanges over its own TCP control connection; -R connects the QPs with rdma_cm"},
	{long: "out_json", action: ptHint, why: "use -o json (to standard output), or --save for a JSON file under results/"},
	{long: "out_json_file", value: true, action: ptHint, why: "use -o json --output-file FILE"},
	{long: "cpu_util", action: ptNoop, why: "both sides' CPU use is always measured and shown"},
	{long: "dlid", value: true, action: ptHint, why: "setting the destination LID is " + notSupported + ": it comes from the peer"},
	{long: "dont_xchg_versions", action: ptHint, why: "the control protocol is versioned and always exchanged"},
	{long: "force-link", value: true, action: ptHint, why: "forcing the link layer is " + notSupported + ": it is the port's"},
	{long: "ipv6", action: ptHint, why: "choose an IPv6 GID with -x INDEX (rdma-bench devices lists them)"},
	{long: "source_ip", value: true, action: ptHint, why: "choosing the source IP is " + notSupported + ": -R uses the address of the port's GID (-x)"},
	{long: "mmap", value: true, action: ptHint, why: "mmap'd (P2P) buffers are " + notSupported},
	{long: "mmap-offset", value: true, action: ptHint, why: "mmap'd (P2P) buffers are " + notSupported},
	{long: "mr_per_qp", action: ptHint, why: "one memory region per QP is " + notSupported},
	{long: "odp", action: ptSame, to: "odp", why: "refused where the device lacks on-demand paging, naming what; not implemented (untested) where it has it"},
	{long: "output", value: true, action: ptHint, collides: "output", looks: func(v string) bool { return slices.Contains(strings.Split(unitsValues, ", "), v) },
		why: "rdma-bench's --output is the format: -o perftest for perftest's columns, -o json or -o csv to read one figure (perftest's --output=" + unitsValues + ")"},
	{long: "use_old_post_send", action: ptAlias, to: "post-api", set: "classic"},
	{long: "perform_warm_up", action: ptNoop, why: "rdma-bench always warms up (--warmup N sets how much)"},
	{long: "pkey_index", value: true, action: ptHint, why: "choosing the P_Key index is " + notSupported + " (index 0)"},
	{long: "report-both", action: ptHint, why: "separate RX and TX figures of -b are " + notSupported},
	{long: "report_gbits", action: ptNoop, why: "Gb/s is always shown (-o perftest prints Gb/sec columns when it is given)"},
	{long: "report-per-port", action: ptHint, why: "dual-port runs are " + notSupported},
	{long: "reversed", action: ptHint, why: "reversing the direction is " + notSupported + ": run the client on the other host"},
	{long: "run_infinitely", action: ptHint, why: "runs have an end: use -D SECONDS with --report-interval 1s for live figures"},
	{long: "retry_count", value: true, action: ptHint, why: "rdma-bench uses perftest's default retry count, 7, and cannot change it"},
	{long: "tclass", value: true, action: ptSame, to: "tclass"},
	{long: "use_hugepages", action: ptAlias, to: "use-hugepages"},
	{long: "wait_destroy", value: true, action: ptHint, why: "waiting before destroying the resources is " + notSupported},
	{long: "disable_pcie_relaxed", action: ptNoop, why: "rdma-bench never asks for PCIe relaxed ordering"},
	{long: "burst_size", value: true, action: ptHint, why: "use --rate OPS: a software rate limit in operations per second"},
	{long: "typical_pkt_size", value: true, action: ptHint, why: "use --rate OPS: a software rate limit in operations per second"},
	{long: "rate_limit", value: true, action: ptHint, why: "use --rate OPS: a software rate limit in operations per second"},
	{long: "rate_units", value: true, action: ptHint, why: "use --rate OPS: a software rate limit in operations per second"},
	{long: "rate_limit_type", value: true, action: ptHint, why: "use --rate OPS: a software rate limit in operations per second"},
	{long: "inline_recv", value: true, action: ptHint, why: "inline receive is " + notSupported},
	{long: "use-srq", action: ptSame, to: "use-srq"},
	{long: "latency_gap", value: true, action: ptHint, why: "use --rate OPS: operations on a fixed schedule, latency measured from each one's due time"},
}

// perftestLong and perftestShort find a row by perftest's spelling.
func perftestLong(name string) *perftestFlag {
	for i := range perftestFlags {
		if perftestFlags[i].long == name {
			return &perftestFlags[i]
		}
	}
	return nil
}

func perftestShort(c string) *perftestFlag {
	for i := range perftestFlags {
		if perftestFlags[i].short == c {
			return &perftestFlags[i]
		}
	}
	return nil
}

// perftestCollision is the hint for a value rdma-bench's flag refused
// that is one of perftest's for its flag of the same spelling (-o 16:
// perftest's outstanding reads); "" when there is none.
func perftestCollision(flag, value string) string {
	for _, e := range perftestFlags {
		if e.collides == flag && e.looks(value) {
			return "perftest's " + e.spelling() + " " + value + "? " + e.why
		}
	}
	return ""
}

// spelling is how perftest writes the flag: "-o/--outs" or "--odp".
func (e *perftestFlag) spelling() string {
	if e.short != "" {
		return "-" + e.short + "/--" + e.long
	}
	return "--" + e.long
}

// translate is perftest's value v as rdma-bench's.
func (e *perftestFlag) translate(v string) string {
	for from, to := range e.values {
		if strings.EqualFold(v, from) {
			return to
		}
	}
	return v
}
