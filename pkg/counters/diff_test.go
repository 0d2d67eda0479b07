package counters

import (
	"math"
	"strings"
	"testing"
	"time"
)

// snap builds a snapshot of rxe0/1 from source/name=value triples.
func snap(at time.Time, cs ...Counter) Snapshot {
	return Snapshot{Device: "rxe0", Port: 1, TakenAt: at, Counters: cs}
}

func TestDiffUnits(t *testing.T) {
	t0 := stamp
	before := snap(t0,
		Counter{SourcePort, "port_xmit_data", 1000},
		Counter{SourcePort, "port_xmit_packets", 10},
		Counter{SourcePortHW, "sent_pkts", 500},
		Counter{SourcePortHW, "rcvd_pkts", 900},
		Counter{SourcePort, "port_rcv_data", 5},
		Counter{SourcePortHW, "gone_after", 1},
	)
	after := snap(t0.Add(1500*time.Millisecond),
		Counter{SourcePort, "port_xmit_data", 1250},          // +250 words = +1000 bytes
		Counter{SourcePort, "port_xmit_packets", 20},         // +10 packets
		Counter{SourcePortHW, "sent_pkts", 3906},             // +3406
		Counter{SourcePortHW, "rcvd_pkts", 3},                // reset: backwards
		Counter{SourcePort, "port_rcv_data", math.MaxUint32}, // stuck at the 32-bit top
		Counter{SourcePortHW, "new_after", 1},
	)
	d, err := Diff(before, after)
	if err != nil {
		t.Fatal(err)
	}
	if d.ElapsedNS != 1.5e9 {
		t.Errorf("ElapsedNS = %d, want 1.5e9", d.ElapsedNS)
	}
	data, ok := d.Get("port_xmit_data")
	if !ok || data.Name != "port_xmit_data_bytes" || data.Unit != UnitBytes || data.Delta != 1000 || data.Before != 4000 || data.After != 5000 {
		t.Errorf("port_xmit_data delta = %+v, want port_xmit_data_bytes +1000 bytes (4000 to 5000)", data)
	}
	if p, _ := d.Get("port_xmit_packets"); p.Delta != 10 || p.Unit != UnitPackets {
		t.Errorf("port_xmit_packets = %+v, want +10 packets", p)
	}
	if s, _ := d.Get("sent_pkts"); s.Delta != 3406 || !s.Usable() {
		t.Errorf("sent_pkts = %+v, want +3406", s)
	}
	if r, _ := d.Get("rcvd_pkts"); !r.WentBackwards || r.Delta != 0 || r.Usable() {
		t.Errorf("rcvd_pkts = %+v, want flagged as gone backwards with delta 0", r)
	}
	if r, _ := d.Get("port_rcv_data_bytes"); !r.Saturated || r.Usable() {
		t.Errorf("port_rcv_data = %+v, want flagged saturated", r)
	}
	for _, name := range []string{"gone_after", "new_after"} {
		if _, ok := findUnavailable(d.Unavailable, SourcePortHW, name); !ok {
			t.Errorf("%s: want it listed unavailable (in one snapshot only)", name)
		}
	}
	if got := data.String(); got != "counters/port_xmit_data_bytes +1000 bytes" {
		t.Errorf("String() = %q", got)
	}
}

func TestDiffMismatch(t *testing.T) {
	a := snap(stamp)
	b := snap(stamp)
	b.Port = 2
	if _, err := Diff(a, b); err == nil || !strings.Contains(err.Error(), "same device and port") {
		t.Errorf("Diff of two ports: error %v", err)
	}
}

func TestWordsSaturate(t *testing.T) {
	if words(math.MaxUint64/4+1) != math.MaxUint64 || words(3) != 12 {
		t.Error("words: want 4 bytes a word, saturating at the top")
	}
}

// rxeNames are the counters rxe (Linux 6.1) exposes.
var rxeNames = []string{"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request",
	"rcvd_rnr_err", "send_rnr_err", "rcvd_seq_err", "ack_deferred", "retry_exceeded_err",
	"retry_rnr_exceeded_err", "completer_retry_err", "send_err", "link_downed", "rdma_sends", "rdma_recvs"}

// rxeRun is the counter movement of a real loopback ib_write_bw -n 200
// -s 65536 on rxe0 (Debian 12 VM, kernel 6.1.0-56): 3400 packets modelled,
// 6 more from 3 duplicates after 2 retries.
func rxeRun(t *testing.T) Deltas {
	t.Helper()
	zero := func(src Source) []Counter {
		var cs []Counter
		for _, name := range rxeNames {
			cs = append(cs, Counter{src, name, 0})
		}
		return cs
	}
	before := snap(stamp, append(zero(SourcePortHW), zero(SourceNetlink)...)...)
	after := snap(stamp.Add(time.Second))
	for _, c := range before.Counters {
		switch c.Name {
		case "sent_pkts", "rcvd_pkts":
			c.Value = 3406
		case "duplicate_request":
			c.Value = 3
		case "completer_retry_err":
			c.Value = 2
		}
		after.Counters = append(after.Counters, c)
	}
	after.Counters = append(after.Counters, Counter{SourceNetdev, "rx_errors", 5})
	before.Counters = append(before.Counters, Counter{SourceNetdev, "rx_errors", 0})
	d, err := Diff(before, after)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestCleanVerdict(t *testing.T) {
	d := rxeRun(t)
	v := d.Clean()
	if v.Clean || !v.Available || len(v.Moved) != 2 {
		t.Fatalf("verdict %+v, want not clean with 2 moved counters (each once, not per source)", v)
	}
	for _, m := range v.Moved {
		if m.Source != SourceNetlink {
			t.Errorf("moved %v: want the netlink copy (fresh), not sysfs", m)
		}
	}
	if got, want := v.String(), "not clean: completer_retry_err +2 events, duplicate_request +3 packets"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}

	imp := d.Important()
	var names []string
	for _, c := range imp {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, " "); got != "completer_retry_err duplicate_request rcvd_pkts sent_pkts" {
		t.Errorf("Important() = %s", got)
	}

	clean := snap(stamp, Counter{SourcePortHW, "sent_pkts", 1}, Counter{SourcePortHW, "duplicate_request", 4})
	d2, _ := Diff(clean, clean)
	if v := d2.Clean(); !v.Clean || v.String() != "clean" {
		t.Errorf("unchanged counters: verdict %+v %q, want clean", v, v.String())
	}

	back := snap(stamp, Counter{SourcePortHW, "duplicate_request", 1})
	d3, _ := Diff(clean, back)
	if v := d3.Clean(); v.Clean || len(v.Suspect) != 1 || !strings.Contains(v.String(), "duplicate_request went backwards") {
		t.Errorf("error counter reset: verdict %+v %q, want not clean, suspect", v, v.String())
	}
}

func TestVerdictUnavailable(t *testing.T) {
	s := Snapshot{Device: "rxe0", Port: 1, Unavailable: []Unavailable{
		{Source: SourcePortHW, Reason: ReasonPermission, Detail: "open x: permission denied"},
		{Source: SourcePort, Reason: ReasonMissing, Detail: "open y: no such file or directory"},
	}}
	d, _ := Diff(s, s)
	v := d.Clean()
	if v.Clean || v.Available {
		t.Errorf("verdict %+v, want unavailable, not clean", v)
	}
	if got := v.String(); !strings.HasPrefix(got, "counters unavailable: hw_counters permission: open x") {
		t.Errorf("String() = %q", got)
	}
	if w := v.Warnings(); len(w) != 2 {
		t.Errorf("Warnings() = %q, want both (nothing was read)", w)
	}

	ok, err := rxeReader().Take("rxe0", 1)
	if err != nil {
		t.Fatal(err)
	}
	d, _ = Diff(ok, ok)
	if w := d.Clean().Warnings(); len(w) != 0 {
		t.Errorf("rxe's absent counters/ and device hw_counters/ are normal: Warnings() = %q", w)
	}
}

// TestCleanSources: only the netlink and sysfs copies of a port counter
// are one counter; the same name in the PMA or device-level group is
// another, and counts on its own.
func TestCleanSources(t *testing.T) {
	before := snap(stamp,
		Counter{SourceNetlink, "out_of_sequence", 0}, Counter{SourcePortHW, "out_of_sequence", 0},
		Counter{SourceDeviceHW, "out_of_sequence", 0}, Counter{SourcePort, "link_downed", 0})
	after := snap(stamp,
		Counter{SourceNetlink, "out_of_sequence", 0}, Counter{SourcePortHW, "out_of_sequence", 0},
		Counter{SourceDeviceHW, "out_of_sequence", 2}, Counter{SourcePort, "link_downed", 1})
	d, err := Diff(before, after)
	if err != nil {
		t.Fatal(err)
	}
	v := d.Clean()
	if v.Clean || len(v.Moved) != 2 {
		t.Fatalf("verdict %+v, want the device-level and PMA counters that moved", v)
	}
	if v.Moved[0].Source != SourcePort || v.Moved[1].Source != SourceDeviceHW {
		t.Errorf("moved %v", v.Moved)
	}
}
