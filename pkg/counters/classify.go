package counters

import (
	"strings"
	"unicode"
)

// Class says what a counter counts, for the clean verdict.
type Class string

// Counter classes. Retransmission and error counters that move make a run
// not clean.
const (
	ClassTraffic        Class = "traffic"        // packets, bytes, operations
	ClassRetransmission Class = "retransmission" // duplicates, NAKs, retries, timeouts
	ClassError          Class = "error"          // failed operations, link and packet errors
	ClassCongestion     Class = "congestion"     // ECN marks, CNPs, wait ticks: reported, not errors
	ClassInfo           Class = "info"           // anything else
)

// Moves makes a run not clean when a counter of this class moves.
func (c Class) Moves() bool { return c == ClassRetransmission || c == ClassError }

// Unit is what one step of a counter is.
type Unit string

// Counter units.
const (
	UnitBytes      Unit = "bytes"
	UnitPackets    Unit = "packets"
	UnitOperations Unit = "operations" // completed work requests or requests received
	UnitEvents     Unit = "events"
)

// Info describes a counter.
type Info struct {
	Class Class
	Unit  Unit
	// Words: the counter counts 4-byte words (IBA PortXmitData and
	// PortRcvData); deltas are given in bytes, named <name>_bytes.
	Words bool
	// Known: from the documented table; false: from the name-pattern rule.
	Known   bool
	Meaning string
}

// entry builds a table entry.
func entry(c Class, u Unit, meaning string) Info {
	return Info{Class: c, Unit: u, Known: true, Meaning: meaning}
}

// table documents the counters of ports/<port>/counters (IBA PMA), rxe's
// hw_counters (Linux 6.1, drivers/infiniband/sw/rxe/rxe_hw_counters.c) and
// mlx5's hw_counters (drivers/infiniband/hw/mlx5/counters.c). Names mean the
// same wherever they appear (duplicate_request and link_downed are in more
// than one list).
var table = map[string]Info{
	// IBA PortCounters / PortCountersExtended (ports/<port>/counters).
	"port_xmit_data":    {Class: ClassTraffic, Unit: UnitBytes, Words: true, Known: true, Meaning: "data octets sent, divided by 4 (IBA: from the LRH to the ICRC, no VCRC)"},
	"port_rcv_data":     {Class: ClassTraffic, Unit: UnitBytes, Words: true, Known: true, Meaning: "data octets received, divided by 4"},
	"port_xmit_packets": entry(ClassTraffic, UnitPackets, "packets sent"),
	"port_rcv_packets":  entry(ClassTraffic, UnitPackets, "packets received"),

	"unicast_xmit_packets":            entry(ClassTraffic, UnitPackets, "unicast packets sent"),
	"unicast_rcv_packets":             entry(ClassTraffic, UnitPackets, "unicast packets received"),
	"multicast_xmit_packets":          entry(ClassTraffic, UnitPackets, "multicast packets sent"),
	"multicast_rcv_packets":           entry(ClassTraffic, UnitPackets, "multicast packets received"),
	"port_xmit_wait":                  entry(ClassCongestion, UnitEvents, "ticks the port had data to send but no credit"),
	"symbol_error":                    entry(ClassError, UnitEvents, "minor link errors on physical lanes"),
	"link_error_recovery":             entry(ClassError, UnitEvents, "link retraining after errors"),
	"link_downed":                     entry(ClassError, UnitEvents, "times the link (rxe: the netdev) went down"),
	"port_rcv_errors":                 entry(ClassError, UnitPackets, "received packets with errors"),
	"port_rcv_remote_physical_errors": entry(ClassError, UnitPackets, "received packets marked bad by the sender (EBP)"),
	"port_rcv_switch_relay_errors":    entry(ClassError, UnitPackets, "received packets a switch could not forward"),
	"port_xmit_discards":              entry(ClassError, UnitPackets, "outbound packets discarded (port down or congested)"),
	"port_xmit_constraint_errors":     entry(ClassError, UnitPackets, "outbound packets dropped by partition or raw filtering"),
	"port_rcv_constraint_errors":      entry(ClassError, UnitPackets, "inbound packets dropped by partition or raw filtering"),
	"local_link_integrity_errors":     entry(ClassError, UnitEvents, "local physical errors beyond the threshold"),
	"excessive_buffer_overrun_errors": entry(ClassError, UnitEvents, "consecutive flow-control buffer overruns"),
	"VL15_dropped":                    entry(ClassError, UnitPackets, "subnet management packets dropped"),

	// rxe (soft-RoCE), Linux 6.1.
	"sent_pkts":              entry(ClassTraffic, UnitPackets, "rxe: packets handed to the network or looped back (requests, ACKs, read responses)"),
	"rcvd_pkts":              entry(ClassTraffic, UnitPackets, "rxe: packets received that passed the header and ICRC checks"),
	"rdma_sends":             entry(ClassTraffic, UnitOperations, "rxe: completed SEND work requests (requester)"),
	"rdma_recvs":             entry(ClassTraffic, UnitOperations, "rxe: completed receive work requests (responder)"),
	"ack_deferred":           entry(ClassInfo, UnitEvents, "rxe: responses queued while the completer had work pending (not an error)"),
	"duplicate_request":      entry(ClassRetransmission, UnitPackets, "responder received an already-seen request PSN: a retransmission"),
	"out_of_seq_request":     entry(ClassRetransmission, UnitPackets, "rxe: responder received a PSN ahead of the expected one and sent a sequence NAK"),
	"rcvd_seq_err":           entry(ClassRetransmission, UnitPackets, "rxe: requester received a PSN sequence error NAK"),
	"rcvd_rnr_err":           entry(ClassRetransmission, UnitPackets, "rxe: requester received an RNR NAK (no receive posted)"),
	"send_rnr_err":           entry(ClassRetransmission, UnitPackets, "rxe: responder sent an RNR NAK (no receive posted)"),
	"completer_retry_err":    entry(ClassRetransmission, UnitEvents, "rxe: requester started a retransmission (ACK timeout or NAK)"),
	"retry_exceeded_err":     entry(ClassError, UnitEvents, "rxe: a work request failed: transport retries exhausted"),
	"retry_rnr_exceeded_err": entry(ClassError, UnitEvents, "rxe: a work request failed: RNR retries exhausted"),
	"send_err":               entry(ClassError, UnitPackets, "rxe: the network stack refused a packet"),

	// mlx5 hw_counters.
	"rx_write_requests":          entry(ClassTraffic, UnitOperations, "mlx5: RDMA WRITE requests received"),
	"rx_read_requests":           entry(ClassTraffic, UnitOperations, "mlx5: RDMA READ requests received"),
	"rx_atomic_requests":         entry(ClassTraffic, UnitOperations, "mlx5: atomic requests received"),
	"rx_dct_connect":             entry(ClassInfo, UnitEvents, "mlx5: DCT connect requests received"),
	"rx_icrc_encapsulated":       entry(ClassInfo, UnitPackets, "mlx5: RoCE packets with an ICRC error (encapsulated)"),
	"out_of_buffer":              entry(ClassError, UnitPackets, "mlx5: packets dropped for lack of a receive WQE"),
	"out_of_sequence":            entry(ClassRetransmission, UnitPackets, "mlx5: out-of-sequence packets received"),
	"packet_seq_err":             entry(ClassRetransmission, UnitPackets, "mlx5: sequence error NAKs received"),
	"implied_nak_seq_err":        entry(ClassRetransmission, UnitEvents, "mlx5: implied NAK sequence errors (READ/atomic response PSN gap)"),
	"local_ack_timeout_err":      entry(ClassRetransmission, UnitEvents, "mlx5: ACK timer expirations on the requester"),
	"rnr_nak_retry_err":          entry(ClassRetransmission, UnitPackets, "mlx5: RNR NAKs received"),
	"roce_adp_retrans":           entry(ClassRetransmission, UnitEvents, "mlx5: adaptive retransmissions"),
	"roce_adp_retrans_to":        entry(ClassRetransmission, UnitEvents, "mlx5: adaptive retransmission timeouts"),
	"roce_slow_restart":          entry(ClassRetransmission, UnitEvents, "mlx5: slow restarts after retransmission timeouts"),
	"roce_slow_restart_cnps":     entry(ClassCongestion, UnitPackets, "mlx5: CNPs sent during slow restart"),
	"roce_slow_restart_trans":    entry(ClassRetransmission, UnitEvents, "mlx5: transitions to slow restart"),
	"resp_local_length_error":    entry(ClassError, UnitEvents, "mlx5: responder local length errors"),
	"resp_cqe_error":             entry(ClassError, UnitEvents, "mlx5: responder completions with error"),
	"req_cqe_error":              entry(ClassError, UnitEvents, "mlx5: requester completions with error"),
	"req_remote_invalid_request": entry(ClassError, UnitEvents, "mlx5: remote invalid request NAKs received"),
	"req_remote_access_errors":   entry(ClassError, UnitEvents, "mlx5: remote access error NAKs received"),
	"resp_remote_access_errors":  entry(ClassError, UnitEvents, "mlx5: remote access errors on the responder"),
	"resp_cqe_flush_error":       entry(ClassError, UnitEvents, "mlx5: responder completions flushed with error"),
	"req_cqe_flush_error":        entry(ClassError, UnitEvents, "mlx5: requester completions flushed with error"),
	"rp_cnp_ignored":             entry(ClassCongestion, UnitPackets, "mlx5: CNPs received and ignored (reaction point)"),
	"rp_cnp_handled":             entry(ClassCongestion, UnitPackets, "mlx5: CNPs handled (reaction point)"),
	"np_ecn_marked_roce_packets": entry(ClassCongestion, UnitPackets, "mlx5: ECN-marked RoCE packets received (notification point)"),
	"np_cnp_sent":                entry(ClassCongestion, UnitPackets, "mlx5: CNPs sent (notification point)"),
	"cc_rx_ce_pkts":              entry(ClassCongestion, UnitPackets, "mlx5: CE-marked packets received"),
	"cc_rx_cnp_pkts":             entry(ClassCongestion, UnitPackets, "mlx5: CNPs received"),
	"cc_tx_cnp_pkts":             entry(ClassCongestion, UnitPackets, "mlx5: CNPs sent"),
}

// Name-pattern rule for counters the table does not know: a name is split
// into words (at '_', '-' and camelCase humps: irdma's ip4InDiscards is
// ip4, in, discards) and each word is matched by its start.
var (
	retransWords    = []string{"retr", "dup", "seq", "nak", "timeout", "rnr", "ooo", "resend"}
	errorWords      = []string{"err", "discard", "drop", "fail", "bad", "invalid", "overrun", "overflow", "lost", "loss", "abort", "flush", "down", "miss", "crc", "reject"}
	congestionWords = []string{"ecn", "cnp", "congest", "pause", "wait"}
)

// Classify says what a counter counts: from the documented table, else
// from its name. The pattern rule is conservative: a name with a word
// starting with "err", "retr", "discard", "drop", "dup", "seq", "nak",
// "timeout", ... is a retransmission or error counter.
func Classify(name string) Info {
	if in, ok := table[name]; ok {
		return in
	}
	in := Info{Class: ClassInfo, Unit: UnitEvents}
	words := splitWords(name)
	has := func(prefixes []string) bool {
		for _, w := range words {
			for _, p := range prefixes {
				if strings.HasPrefix(w, p) {
					return true
				}
			}
		}
		return false
	}
	switch {
	case has([]string{"byte", "octet"}):
		in.Unit = UnitBytes
	case has([]string{"pkt", "packet"}):
		in.Unit = UnitPackets
	}
	switch {
	case has(errorWords) && !has(retransWords):
		in.Class = ClassError
	case has(retransWords) || has(errorWords):
		in.Class = ClassRetransmission
	case has(congestionWords):
		in.Class = ClassCongestion
	case in.Unit != UnitEvents:
		in.Class = ClassTraffic
	}
	return in
}

// splitWords splits a counter name into lower-case words at '_', '-', and
// camelCase boundaries (aB, and AbC before the last capital of a run).
func splitWords(name string) []string {
	var words []string
	var cur []rune
	rs := []rune(name)
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case r == '_' || r == '-':
			flush()
			continue
		case unicode.IsUpper(r) && i > 0:
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}
