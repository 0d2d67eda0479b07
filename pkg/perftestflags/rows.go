package perftestflags

import (
	"slices"
	"strconv"
	"strings"
)

func isNumber(v string) bool { _, err := strconv.Atoi(v); return err == nil }

const (
	notSupported = "not supported"
	unitsValues  = "bandwidth, message_rate, latency"
	// gpu is the refusal of every accelerator memory option: what it
	// would take is the vendor's runtime to allocate the buffers and a
	// registration of device memory, which rdma-bench does not build with.
	gpu = "GPU memory is " + notSupported + ": rdma-bench registers host memory only (--use-hugepages for huge pages); " +
		"testing GPUDirect RDMA would need the buffers allocated through the accelerator's runtime (CUDA, ROCm, ...) " +
		"and registered as DMA-BUF (ibv_reg_dmabuf_mr) or peer memory"
	// raw is the refusal of perftest's raw Ethernet options (its
	// raw_ethernet_* tests).
	raw = "raw Ethernet (raw_ethernet_* tests, raw packet QPs) is " + notSupported + ": rdma-bench measures RC, UC and UD queue pairs, and TCP"
	tph = "PCIe TLP processing hints (TPH) are " + notSupported
	// rateLimit is the refusal of perftest's rate limiter options.
	rateLimit = "use --rate OPS: a software rate limit in operations per second"
	srcIP     = "choosing the source IP is " + notSupported + ": -R uses the address of the port's GID (-x)"
)

// Table is the table of perftest's flags: every option of perftest
// 4.5-0.17's ib_*_bw and ib_*_lat --help, then those of upstream
// perftest today (TestPerftestTableCoversHelp: testdata/4.5 and
// testdata/upstream), in the order of the 4.5 help, then upstream's.
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
	{Short: "H", Long: "report-histogram", Also: []string{"report-histogrm"}, Action: Hint,
		Why: "use -o hgrm for the percentile distribution, or --samples FILE for every sample"},
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
	{Short: "w", Long: "limit_bw", Value: true, Action: Hint, Why: "use --expect bw>=N with its unit (Gb/s, MiB/s, or 90%link): a point below it exits 1; perftest's -w is in its report's unit, MiB/s or, with --report_gbits, Gb/s"},
	{Short: "W", Long: "report-counters", Value: true, Action: Hint, Why: "the port's counters are read around every run (--counters, on by default): -o json has their deltas"},
	{Short: "x", Long: "gid-index", Value: true, Action: Same, To: "gid-index"},
	{Short: "y", Long: "limit_msgrate", Value: true, Action: Alias, To: "expect", Format: "msgrate>=%sMpps",
		Why: "a point whose message rate is below N Mpps exits 1, as perftest's verifier limit (run and suite)"},
	{Short: "z", Long: "comm_rdma_cm", Also: []string{"com_rdma_cm"}, Action: Hint,
		Why: "rdma-bench exchanges over its own TCP control connection; -R connects the QPs with rdma_cm"},
	{Long: "out_json", Action: Hint, Why: "use -o json (to standard output), or --save for a JSON file under results/"},
	{Long: "out_json_file", Value: true, Action: Hint, Why: "use -o json --output-file FILE"},
	{Long: "cpu_util", Action: Noop, Why: "both sides' CPU use is always measured and shown"},
	{Long: "dlid", Value: true, Action: Hint, Why: "setting the destination LID is " + notSupported + ": it comes from the peer"},
	{Long: "dont_xchg_versions", Action: Hint, Why: "the control protocol is versioned and always exchanged"},
	{Long: "force-link", Value: true, Action: Hint, Why: "forcing the link layer is " + notSupported + ": it is the port's"},
	{Long: "ipv6", Action: Hint, Why: "choose an IPv6 GID with -x INDEX (rdma-bench devices lists them)"},
	{Short: "j", Long: "source_ip", Value: true, Action: Hint, Why: srcIP + "; as raw Ethernet's -j, " + raw},
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
	{Long: "report_gbits", Action: Kept, Why: "-o perftest prints perftest's Gb/sec columns in place of MB/sec; the other outputs show Gb/s always"},
	{Long: "report-per-port", Action: Hint, Why: "dual-port runs are " + notSupported},
	{Long: "reversed", Action: Hint, Why: "reversing the direction is " + notSupported + ": run the client on the other host"},
	{Long: "run_infinitely", Action: Hint, Why: "runs have an end: use -D SECONDS with --report-interval 1s for live figures"},
	{Long: "retry_count", Value: true, Action: Hint, Why: "rdma-bench uses perftest's default retry count, 7, and cannot change it"},
	{Long: "tclass", Value: true, Action: Same, To: "tclass"},
	{Long: "use_hugepages", Action: Alias, To: "use-hugepages"},
	{Long: "wait_destroy", Value: true, Action: Hint, Why: "waiting before destroying the resources is " + notSupported},
	{Long: "disable_pcie_relaxed", Action: Noop, Why: "rdma-bench never asks for PCIe relaxed ordering"},
	{Long: "burst_size", Value: true, Action: Hint, Why: rateLimit},
	{Long: "typical_pkt_size", Value: true, Action: Hint, Why: rateLimit},
	{Long: "rate_limit", Value: true, Action: Hint, Why: rateLimit},
	{Long: "rate_units", Value: true, Action: Hint, Why: rateLimit},
	{Long: "rate_limit_type", Value: true, Action: Hint, Why: rateLimit},
	{Long: "inline_recv", Value: true, Action: Hint, Why: "inline receive is " + notSupported},
	{Long: "use-srq", Action: Same, To: "use-srq"},
	{Long: "latency_gap", Value: true, Action: Hint, Why: "use --rate OPS: operations on a fixed schedule, latency measured from each one's due time"},

	// Upstream's options that 4.5 lacks: connections and operations.
	{Long: "ipv6-addr", Action: Noop, Why: "the control connection's address family follows the host given: an IPv6 address or name works as it is"},
	{Long: "bind_source_ip", Value: true, Action: Hint, Why: srcIP},
	{Long: "flow_label", Value: true, Action: Hint, Why: "setting the GRH flow label is " + notSupported + " (--tclass sets the traffic class)"},
	{Long: "payload_file_path", Value: true, Action: Hint, Why: "payloads from a file are " + notSupported + ": --validate writes a pattern of its own and checks every byte"},
	{Long: "use-null-mr", Action: Hint, Why: "null memory regions (ibv_alloc_null_mr) are " + notSupported},
	{Long: "no_lock", Action: Hint, Why: "thread domains (lock-free verbs) are " + notSupported + "; each thread already has its own CQ and QPs"},
	{Long: "no_ddp", Action: Hint, Why: "out-of-order receive work requests are " + notSupported},
	{Long: "use_ooo", Action: Hint, Why: "out-of-order data placement is " + notSupported},
	{Long: "congest_type", Value: true, Action: Hint, Why: "choosing the congestion control algorithm (hns direct verbs) is " + notSupported},
	{Long: "connectionless", Action: Hint, Why: "a connectionless multicast server is " + notSupported + ": -g sends to groups chosen per run, server and client started as usual"},
	{Long: "unsolicited_write", Action: Hint, Why: "SRD is " + notSupported},
	{Long: "sig_offload", Action: Hint, Why: "signature offload (T10-DIF) is " + notSupported},
	{Long: "write_with_imm", Action: Alias, To: "imm", Why: "write_lat and write_bw"},
	{Long: "send_with_imm", Action: Hint, Why: "SEND with immediate is " + notSupported + ": --imm is RDMA WRITE with immediate (perftest's --write_with_imm)"},
	{Long: "data_validation", Action: Alias, To: "validate", Why: "rdma-bench patterns the payloads and checks every byte after the run"},
	{Long: "cqe_poll", Value: true, Action: Hint, Why: "the poll batch is fixed: rdma-bench takes up to 32 completions a poll"},
	{Long: "disable_dynamic_polling", Action: Noop, Why: "rdma-bench's poll batch is fixed (up to 32 completions a poll): there is no adaptive batch to turn off"},
	{Long: "pin_cores", Value: true, Action: Alias, To: "cpu", Accepts: isNumber,
		Why: "one CPU N: rdma-bench pins measuring thread i to CPU N+i (a list is refused: give its first CPU)"},
	{Long: "numa_node", Value: true, Action: Alias, To: "numa-node", Why: "threads and registered buffers on node N (--cpu and it cannot go together, as perftest's --pin_cores and --numa_node)"},
	{Long: "disable_numa", Action: Alias, To: "numa-node", Set: "off", Why: "no NUMA placement (by default, the device's node, as perftest 26.04)"},
	{Long: "tph_mem", Value: true, Action: Hint, Why: tph},
	{Long: "ph", Value: true, Action: Hint, Why: tph},
	{Long: "cpu_id", Value: true, Action: Hint, Why: tph},

	// Upstream's accelerator and device memory.
	{Long: "use_cuda", Value: true, Action: Hint, Why: gpu},
	{Long: "use_cuda_bus_id", Value: true, Action: Hint, Why: gpu},
	{Long: "use_cuda_dmabuf", Action: Hint, Why: gpu},
	{Long: "cuda_mem_type", Value: true, Action: Hint, Why: gpu},
	{Long: "use_data_direct", Action: Hint, Why: gpu},
	{Long: "use_rocm", Value: true, Action: Hint, Why: gpu},
	{Long: "use_rocm_dmabuf", Action: Hint, Why: gpu},
	{Long: "use_neuron", Value: true, Action: Hint, Why: gpu},
	{Long: "use_neuron_dmabuf", Action: Hint, Why: gpu},
	{Long: "use_hl", Value: true, Action: Hint, Why: gpu},
	{Long: "use_mlu", Value: true, Action: Hint, Why: gpu},
	{Long: "use_mlu_dmabuf", Action: Hint, Why: gpu},
	{Long: "use_musa", Value: true, Action: Hint, Why: gpu},
	{Long: "use_opencl", Value: true, Action: Hint, Why: gpu},
	{Long: "opencl_platform_id", Value: true, Action: Hint, Why: gpu},
	{Long: "gpu_touch", Value: true, Action: Hint, Why: gpu},
	{Long: "use_ib_dm_dmabuf", Value: true, Action: Hint, Why: "the device's own memory (ibv_alloc_dm) as buffers is " + notSupported + ": rdma-bench registers host memory only"},

	// Upstream's raw Ethernet options (raw_ethernet_* tests).
	{Short: "B", Long: "source_mac", Value: true, Action: Hint, Why: raw},
	{Short: "E", Long: "dest_mac", Value: true, Action: Hint, Why: raw},
	{Short: "J", Long: "dest_ip", Value: true, Action: Hint, Why: raw},
	{Short: "K", Long: "dest_port", Value: true, Action: Hint, Why: raw},
	{Short: "k", Long: "source_port", Value: true, Action: Hint, Why: raw},
	{Short: "Y", Long: "ethertype", Value: true, Action: Hint, Why: raw},
	{Short: "Z", Long: "server", Action: Hint, Why: raw + " (rdma-bench server serves every workload)"},
	{Short: "P", Long: "client", Action: Hint, Why: raw + " (rdma-bench run HOST is the client)"},
	{Short: "v", Long: "mac_fwd", Action: Hint, Why: raw},
	{Short: "G", Long: "use_rss", Action: Hint, Why: raw},
	{Long: "remote_mac", Value: true, Action: Hint, Why: raw},
	{Long: "local_mac", Value: true, Action: Hint, Why: raw},
	{Long: "remote_ip", Value: true, Action: Hint, Why: raw},
	{Long: "local_ip", Value: true, Action: Hint, Why: raw},
	{Long: "remote_port", Value: true, Action: Hint, Why: raw},
	{Long: "local_port", Value: true, Action: Hint, Why: raw},
	{Long: "tcp", Action: Hint, Why: raw + " (tcp_lat and tcp_bw are rdma-bench's TCP baseline)"},
	{Long: "raw_ipv6", Action: Hint, Why: raw},
	{Long: "promiscuous", Action: Hint, Why: raw},
	{Long: "sniffer", Action: Hint, Why: raw},
	{Long: "raw_mcast", Action: Hint, Why: raw},
	{Long: "flows", Value: true, Action: Hint, Why: raw},
	{Long: "flows_burst", Value: true, Action: Hint, Why: raw},
	{Long: "reply_every", Value: true, Action: Hint, Why: raw},
	{Long: "vlan_en", Action: Hint, Why: raw},
	{Long: "vlan_pcp", Value: true, Action: Hint, Why: raw},
}
