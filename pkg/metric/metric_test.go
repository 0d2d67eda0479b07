package metric

import (
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

func TestTable(t *testing.T) {
	keys := map[string]bool{}
	for _, m := range All() {
		if m.Name == "" || m.Unit == "" || m.What == "" || m.Axis == "" || m.Key == "" || m.For == 0 {
			t.Errorf("%+v: a column is empty", m)
		}
		if keys[m.Key] {
			t.Errorf("%s: key %s twice", m.Name, m.Key)
		}
		keys[m.Key] = true
		if got, err := Lookup(m.Name); err != nil || got != m {
			t.Errorf("Lookup(%s) = %+v, %v", m.Name, got, err)
		}
		if got, ok := ByKey(m.Key); !ok || got != m {
			t.Errorf("ByKey(%s) = %+v", m.Key, got)
		}
	}
	if _, err := Lookup("jitter"); err == nil || err.Error() != `unknown metric "jitter" (known: lat.p50, lat.p99, lat.p99_9, bw, msgrate, cpu.op, cpu.gb)` {
		t.Errorf("Lookup(jitter): %v", err)
	}
}

func TestValue(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	f := &document.Figures{LatencyUS: &document.Latency{P50: v(2), P99: v(3), P99_9: v(4)}, BwGbps: v(5), MsgRateMpps: v(6),
		CPUUSPerOp: document.Costs{Local: v(7)}, CPUSPerGB: document.Costs{Local: v(1), Total: v(8)}}
	for m, want := range map[Metric]float64{LatP50: 2, LatP99: 3, LatP99_9: 4, BW: 5, MsgRate: 6, CPUPerOp: 7, CPUPerGB: 8} {
		if got := m.Value(f); got == nil || *got != want {
			t.Errorf("%s: %v, want %v", m.Name, got, want)
		}
	}
	if LatP50.Value(&document.Figures{}) != nil || (Metric{Name: "x"}).Value(f) != nil {
		t.Error("a figure for a metric the figures lack")
	}
	if !LatP99.AppliesTo(true) || LatP99.AppliesTo(false) || BW.AppliesTo(true) || !CPUPerOp.AppliesTo(true) || !CPUPerOp.AppliesTo(false) || CPUPerGB.AppliesTo(true) {
		t.Error("AppliesTo")
	}
}

func TestLookupMetric(t *testing.T) {
	m, err := Lookup("bw")
	if err != nil || m != BW || !m.HigherIsBetter || m.Unit != "Gb/s" {
		t.Errorf("bw: %+v, %v", m, err)
	}
	_, err = Lookup("lat.p95")
	want := `unknown metric "lat.p95" (known: lat.p50, lat.p99, lat.p99_9, bw, msgrate, cpu.op, cpu.gb)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
