package counters

import (
	"strings"
	"testing"
)

func TestClassifyTable(t *testing.T) {
	for _, c := range []struct {
		name  string
		class Class
		unit  Unit
	}{
		// rxe, Linux 6.1: every counter it exposes.
		{"sent_pkts", ClassTraffic, UnitPackets},
		{"rcvd_pkts", ClassTraffic, UnitPackets},
		{"duplicate_request", ClassRetransmission, UnitPackets},
		{"out_of_seq_request", ClassRetransmission, UnitPackets},
		{"rcvd_rnr_err", ClassRetransmission, UnitPackets},
		{"send_rnr_err", ClassRetransmission, UnitPackets},
		{"rcvd_seq_err", ClassRetransmission, UnitPackets},
		{"ack_deferred", ClassInfo, UnitEvents},
		{"retry_exceeded_err", ClassError, UnitEvents},
		{"retry_rnr_exceeded_err", ClassError, UnitEvents},
		{"completer_retry_err", ClassRetransmission, UnitEvents},
		{"send_err", ClassError, UnitPackets},
		{"link_downed", ClassError, UnitEvents},
		{"rdma_sends", ClassTraffic, UnitOperations},
		{"rdma_recvs", ClassTraffic, UnitOperations},
		// mlx5.
		{"out_of_sequence", ClassRetransmission, UnitPackets},
		{"packet_seq_err", ClassRetransmission, UnitPackets},
		{"local_ack_timeout_err", ClassRetransmission, UnitEvents},
		{"implied_nak_seq_err", ClassRetransmission, UnitEvents},
		{"rnr_nak_retry_err", ClassRetransmission, UnitPackets},
		{"out_of_buffer", ClassError, UnitPackets},
		{"req_cqe_error", ClassError, UnitEvents},
		{"np_cnp_sent", ClassCongestion, UnitPackets},
		{"rx_write_requests", ClassTraffic, UnitOperations},
		// IBA PMA.
		{"symbol_error", ClassError, UnitEvents},
		{"port_rcv_errors", ClassError, UnitPackets},
		{"port_xmit_discards", ClassError, UnitPackets},
		{"VL15_dropped", ClassError, UnitPackets},
		{"port_xmit_wait", ClassCongestion, UnitEvents},
		{"port_xmit_packets", ClassTraffic, UnitPackets},
		{"port_xmit_data", ClassTraffic, UnitBytes},
	} {
		in := Classify(c.name)
		if !in.Known || in.Class != c.class || in.Unit != c.unit || in.Meaning == "" {
			t.Errorf("Classify(%q) = %+v, want known %s in %s with a meaning", c.name, in, c.class, c.unit)
		}
	}
	if !Classify("port_xmit_data").Words || !Classify("port_rcv_data").Words || Classify("port_xmit_packets").Words {
		t.Error("only port_xmit_data and port_rcv_data count 4-byte words")
	}
}

// TestClassifyPattern covers names of drivers the table does not know
// (bnxt_re, irdma, efa, netdev statistics, made-up ones).
func TestClassifyPattern(t *testing.T) {
	for _, c := range []struct {
		name  string
		class Class
		unit  Unit
	}{
		{"rx_roce_errors", ClassError, UnitEvents},
		{"tx_retransmits", ClassRetransmission, UnitEvents},
		{"seq_err_naks_rcvd", ClassRetransmission, UnitEvents},
		{"rx_dup_pkts", ClassRetransmission, UnitPackets},
		{"ip4InDiscards", ClassError, UnitEvents}, // irdma's camelCase
		{"tcpRetransSegs", ClassRetransmission, UnitEvents},
		{"RxECNMrkd", ClassCongestion, UnitEvents},
		{"ip4rxPkts", ClassTraffic, UnitPackets},
		{"rx_discards", ClassError, UnitEvents},
		{"rx_dropped", ClassError, UnitEvents},
		{"to_retransmits", ClassRetransmission, UnitEvents},
		{"local_ack_timeouts", ClassRetransmission, UnitEvents},
		{"rnr_naks_rcvd", ClassRetransmission, UnitEvents},
		{"rx_ecn_marked_pkts", ClassCongestion, UnitPackets},
		{"tx_bytes", ClassTraffic, UnitBytes},
		{"rx_pkts", ClassTraffic, UnitPackets},
		{"rx_octets", ClassTraffic, UnitBytes},
		{"active_qps", ClassInfo, UnitEvents},
		{"interrupts", ClassInfo, UnitEvents}, // "err" inside a word does not count
	} {
		in := Classify(c.name)
		if in.Known || in.Class != c.class || in.Unit != c.unit {
			t.Errorf("Classify(%q) = %+v, want pattern-rule %s in %s", c.name, in, c.class, c.unit)
		}
	}
}

func TestSplitWords(t *testing.T) {
	for name, want := range map[string]string{
		"port_xmit_data": "port xmit data",
		"ip4InDiscards":  "ip4 in discards",
		"RxECNMrkd":      "rx ecn mrkd",
		"VL15_dropped":   "vl15 dropped",
		"tcpRetransSegs": "tcp retrans segs",
		"a--b__c":        "a b c",
	} {
		if got := strings.Join(splitWords(name), " "); got != want {
			t.Errorf("splitWords(%q) = %q, want %q", name, got, want)
		}
	}
}
