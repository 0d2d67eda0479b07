package fabric

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"unsafe"
)

// buildDoc1024 fills rank 0's document for a pairs sweep of n ranks the
// way the sweep does (each report through sweeper.resolve), each pair
// with four figures and a result of resultBytes bytes, allocated afresh
// as decoding a report does.
func buildDoc1024(tb testing.TB, n, resultBytes int) *Document {
	rounds, err := Schedule(PatternPairs, n)
	if err != nil {
		tb.Fatal(err)
	}
	members := make([]Member, n)
	for r := range members {
		members[r] = testMember(r)
		members[r].Rank = r
	}
	sw := &sweeper{s: &Session{Members: members}, intern: map[string]string{},
		doc: &Document{Members: members, Pairs: make([]PairOutcome, 0, n*(n-1))}}
	reports := make([]*doneMsg, n)
	for i, round := range rounds {
		for _, p := range round {
			var result json.RawMessage
			if resultBytes > 0 {
				result = make(json.RawMessage, resultBytes) // {"x":"aaa..."}
				copy(result, `{"x":"`)
				for j := 6; j < resultBytes-2; j++ {
					result[j] = 'a'
				}
				copy(result[resultBytes-2:], `"}`)
			}
			reports[p.Src] = &doneMsg{Round: i + 1, ElapsedNS: 1e10, Result: result, Figures: map[string]float64{
				"write_lat.p50_us": 1.5, "write_lat.p99_us": 2.5, "write_bw.bw_gbps": 97.5, "write_bw.msg_rate_mpps": 1.49,
			}}
			reports[p.Dst] = &doneMsg{Round: i + 1}
			sw.doc.Pairs = append(sw.doc.Pairs, PairOutcome{Round: i + 1, Src: p.Src, Dst: p.Dst})
			sw.resolve(&sw.doc.Pairs[len(sw.doc.Pairs)-1], reports)
		}
	}
	return sw.doc
}

func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkRank0Memory1024 reports rank 0's heap for the results of a
// 1024-rank pairs sweep (1024*1023 pairs), without and with a 512-byte
// result per pair, then what the matrices, the outliers and the JSON
// encoding add. Run: go test -run '^$' -bench Memory1024 -benchtime 1x
func BenchmarkRank0Memory1024(b *testing.B) {
	const n = 1024
	for _, resultBytes := range []int{0, 512} {
		b.Run(fmt.Sprintf("result_%dB", resultBytes), func(b *testing.B) {
			for b.Loop() {
				before := heapAlloc()
				doc := buildDoc1024(b, n, resultBytes)
				held := heapAlloc() - before
				if len(doc.Pairs) != n*(n-1) || !doc.Pairs[0].OK() {
					b.Fatalf("%d pairs", len(doc.Pairs))
				}
				b.ReportMetric(float64(held)/(1<<20), "MiB_held")
				b.ReportMetric(float64(held)/float64(len(doc.Pairs)), "B/pair")

				mats := make([]*Matrix, 0, 4)
				for _, metric := range doc.Metrics() {
					mats = append(mats, doc.Matrix(metric))
				}
				outs, err := FindSuspects(doc, OutlierOptions{ThresholdPct: 20})
				if err != nil || len(outs) != 0 {
					b.Fatal(err, len(outs))
				}
				b.ReportMetric(float64(heapAlloc()-before-held)/(1<<20), "MiB_matrices")
				cw := &countWriter{}
				if err := json.NewEncoder(cw).Encode(doc); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(cw.n)/(1<<20), "MiB_json")
				runtime.KeepAlive(mats)
				runtime.KeepAlive(doc)
			}
		})
	}
}

// countWriter counts the bytes written to it.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// TestRank0Memory is BenchmarkRank0Memory1024's path on 64 ranks, so that
// a plain go test checks it still builds a full document.
func TestRank0Memory(t *testing.T) {
	doc := buildDoc1024(t, 64, 16)
	if len(doc.Pairs) != 64*63 || len(doc.Failed()) != 0 || len(doc.Metrics()) != 4 {
		t.Fatalf("%d pairs, %d failed, metrics %v", len(doc.Pairs), len(doc.Failed()), doc.Metrics())
	}
	// Equal metric names share one string.
	a, b := doc.Pairs[0].Figures[0].Metric, doc.Pairs[1].Figures[0].Metric
	if a != b || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Error("metric names not interned")
	}
}
