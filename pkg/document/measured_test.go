package document

import (
	"strings"
	"testing"
)

// TestMeasuredRefusals: what a dropped key or a clock that jumped leaves
// in a result marked ok is refused, naming the key; the same figures in a
// result marked partial or insufficient, which say they measured less,
// are read.
func TestMeasuredRefusals(t *testing.T) {
	lat := `"latency_us": {"min": 1, "p50": 2, "p90": 3, "p99": 4, "p99_9": 5, "p99_99": 6, "max": 7}`
	doc := func(repeat, result string) string {
		return `{"tool": {"name": "rdma-bench"}, "schema_version": 2, "repeat": ` + repeat + `, "results": [{"workload": "write_lat", "size_bytes": 64, ` + result + `}]}`
	}
	run := `{"status": "ok", "ops": 10, "elapsed_ns": 100, ` + lat + `}`
	for _, c := range []struct{ doc, want string }{
		{doc("1", `"kind": "latency", "status": "ok", "elapsed_ns": 100`), "results[0] (write_lat 64 B).latency_us.p50 is missing in a run marked ok"},
		{doc("1", `"kind": "latency", "status": "ok", "latency_us": {"p50": 2}, "runs": [{"status": "ok"}]`), "results[0] (write_lat 64 B).runs[0].latency_us.p50 is missing in a run marked ok"},
		{doc("1", `"kind": "bandwidth", "status": "ok", "msg_rate_mpps": 1`), "results[0] (write_lat 64 B).bw_gbps is missing in a run marked ok"},
		{doc("1", `"kind": "bandwidth", "bw_gbps": 1`), "results[0] (write_lat 64 B).msg_rate_mpps is missing in a run marked ok"},
		{doc("1", `"kind": "latency", "status": "ok", "elapsed_ns": -5, `+lat), "results[0] (write_lat 64 B).elapsed_ns is -5: want the timed part's length in ns, not below 0 (a clock that went backwards?)"},
		{doc("1", `"kind": "latency", "latency_us": {"min": 1, "p50": 9, "p90": 3, "max": 10}`), "results[0] (write_lat 64 B).latency_us.p90 is 3, below p50 9: want percentiles in order (a clock that jumped?)"},
		{doc("1", `"kind": "latency", "latency_us": {"min": 1, "p50": 2, "p99": 40, "max": 10}`), "results[0] (write_lat 64 B).latency_us.p99 is 40, above max 10"},
		{doc("1", `"status": "ok", `+lat), `results[0] (write_lat 64 B).kind is "": want "latency" or "bandwidth"`},
		{doc("3", `"kind": "latency", "status": "ok", `+lat), "results[0] (write_lat 64 B).runs is missing: the document measured every point 3 times (repeat), want its runs (a key dropped?)"},
		{doc("3", `"kind": "latency", "status": "ok", `+lat+`, "runs": [`+run+`, `+run+`]`), `results[0] (write_lat 64 B).runs holds 2 runs in a result marked ok: want the 3 of repeat, or status "partial"`},
	} {
		if _, err := Parse([]byte(c.doc)); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Parse(%s):\n got  %v\n want %s...", c.doc, err, c.want)
		}
	}
	for _, ok := range []string{
		doc("1", `"kind": "latency", "status": "insufficient", "reason": "no sample"`),
		doc("3", `"kind": "latency", "status": "partial", `+lat+`, "runs": [`+run+`, `+run+`]`),
		doc("1", `"kind": "latency", "status": "ok", "latency_us": {"min": 1, "p50": 2, "p99_99": 7.05, "max": 7}`), // a bucket's top, within 1%
	} {
		if _, err := Parse([]byte(ok)); err != nil {
			t.Errorf("Parse(%s): %v, want it read", ok, err)
		}
	}
}
