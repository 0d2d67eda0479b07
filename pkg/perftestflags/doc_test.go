package perftestflags

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// perftestDoc writes docs/perftest-flags.md from the table.
func perftestDoc() string {
	var b strings.Builder
	b.WriteString(`# perftest's flags in rdma-bench

` + "`run`, `suite`, `server` and `fabric`" + ` take perftest's spellings, those of two versions
(both kept in pkg/perftestflags/testdata/, and the tests check the table against each):

- perftest 4.5-0.17, Debian's package: every flag of the ` + "`--help`" + ` of ib_write_bw,
  ib_read_bw, ib_send_bw, ib_atomic_bw and the four ib_*_lat, captured from the binaries;
- upstream perftest today (linux-rdma/perftest): the options of its parser
  (src/perftest_parameters.c), of its manual page and of the 26.04 release
  (NUMA placement, GPU memory families, adaptive polling), read from the source,
  not captured from a build (testdata/upstream/README says which file is which).

Each is one of:

- **same**: rdma-bench has the flag, spelled and meant as perftest's.
- **alias**: rewritten to rdma-bench's flag before parsing, its value translated.
- **ignored**: accepted and dropped, with a note on stderr saying why it changes nothing.
- **refused**: an unknown flag (exit 2) whose message says what rdma-bench offers instead.

Where perftest's letter is one of rdma-bench's with another meaning, the table says
so: ` + "`-o`" + ` is rdma-bench's output format, not perftest's outstanding reads (` + "`-o 16`" + `
is refused as an unknown format, with perftest's meaning and the hint), and
` + "`--output`" + ` is the format, not perftest's ` + "`--output=bandwidth`" + ` verbosity. Every other
letter rdma-bench shares with perftest means the same in both, but for ` + "`server -P`" + `,
rdma-bench's ` + "`--persistent`" + ` (perftest's raw Ethernet ` + "`--client`" + `). A spelling in
parentheses is perftest's other one for the same option (its help and its parser
disagree).

GPU memory (` + "`--use_cuda`" + `, ` + "`--use_rocm`" + `, their DMA-BUF and bus-id forms, Neuron,
Habana, MLU, MUSA, OpenCL) is refused, saying what it would take: rdma-bench registers
host memory only. perftest's raw Ethernet tests (` + "`raw_ethernet_bw`" + `, ` + "`raw_ethernet_lat`" + `,
...) are refused as workloads, and their options as flags: rdma-bench measures RC, UC
and UD queue pairs, and TCP.

This file is generated from the table in pkg/perftestflags/rows.go:
` + "`go test ./pkg/perftestflags -run PerftestDoc -update`" + ` rewrites it, and the tests check
the table against perftest's --help and against rdma-bench's flags.

## ` + "`-o perftest`" + `

prints perftest's results table, byte for byte (its header, column order and printf
formats, checked against ones captured from the 4.5-0.17 binaries), one table per
set of parameters, without perftest's preamble, for scripts that read it by position:

    bandwidth:  #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]
    latency:    #bytes #iterations t_min[usec] t_max[usec] t_typical[usec] t_avg[usec] t_stdev[usec] 99% percentile[usec] 99.9% percentile[usec]
    latency -D: #bytes #iterations t_avg[usec] tps average

- MB/sec is 2^20 bytes per second, as in perftest (its format_factor 0x100000; newer
  perftest calls it MiB/sec). With ` + "`--report_gbits`" + ` on the command line it prints
  perftest's Gb/sec columns (10^9 bits per second, six decimals below 0.1).
- t_typical is the median (p50). Latency is half the round trip for write and send,
  the full round trip for read and atomics, as perftest's.
- The figures are rdma-bench's: perftest drops the two largest samples before its
  statistics and truncates each deviation to an integer in t_stdev; rdma-bench
  keeps every sample and computes the exact deviation. #iterations is the
  iterations asked for, or in duration mode the operations measured, as it is for a
  point cut short (interrupted, or never reached: 0), with a note saying so. A
  ` + "`--rate`" + ` list gives a row per rate, in the order measured, the rate not shown.
- A figure that could not be measured is ` + "`-`" + ` (perftest's ` + "`-N`" + ` prints 0.00 for
  the peak).
- Every caveat the table view writes of a row goes to standard error once the
  output is written, one line each, in the table's words, the row named by workload
  and size: stdout keeps perftest's bytes for the scripts that read it. A run whose
  port counters moved, a percentile from too few samples, a point cut short, a
  failed ` + "`--expect`" + `:

      rdma-bench: not clean: write_bw 65536 bytes: the device's error counters moved during the run (retransmissions, drops): its figures include the recovery
      rdma-bench: counters: write_bw 65536 bytes: client: not clean: completer_retry_err +62 events, duplicate_request +1820 packets
      rdma-bench: thin: write_lat 2 bytes: p99, p99.9 of 4 samples: a percentile from fewer samples than it needs (p99: 100, p99.9: 1,000, p99.99: 10,000): it is the largest sample, or near it
      rdma-bench: partial: write_bw 1048576 bytes: interrupted: interrupt received
      rdma-bench: #iterations: write_bw 1048576 bytes: 120 is the operations measured (every queue pair, thread, direction and run together), not the 300 iterations asked

## The flags

| perftest | value | rdma-bench | note |
|---|---|---|---|
`)
	for _, e := range Table {
		sp := "`--" + e.Long + "`"
		if e.Short != "" {
			sp = "`-" + e.Short + "`, " + sp
		}
		for _, a := range e.Also {
			sp += " (`--" + a + "`)"
		}
		value := ""
		if e.Value {
			value = "yes"
		}
		var what string
		switch e.Action {
		case Same:
			what = "same"
		case Alias:
			what = "alias of `--" + e.To + "`"
			for _, from := range slices.Sorted(maps.Keys(e.Values)) {
				what += fmt.Sprintf(", %s -> %s", from, e.Values[from])
			}
			if e.Format != "" {
				what += " " + strings.ReplaceAll(e.Format, "%s", "N")
			}
			if e.Set != "" {
				what += "=" + e.Set
			}
		case Noop:
			what = "ignored"
		case Kept:
			what = "honoured by -o perftest"
		case Hint:
			what = "refused"
		}
		if e.Collides != "" {
			what += fmt.Sprintf(" (rdma-bench's `--%s` is another flag)", e.Collides)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", sp, value, what, strings.ReplaceAll(e.Why, "|", "\\|"))
	}
	return b.String()
}
