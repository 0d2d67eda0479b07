package fabric

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"runtime"
	"testing"
)

// buildDoc fills rank 0's document for a pairs sweep of n ranks the way
// the sweep does (each report through sweeper.resolve, each outcome into
// the pair log as its round ends), each pair with four figures (rank 2's
// pairs worse, so that there are suspects) and a result of resultBytes
// bytes, allocated afresh as decoding a report does. With slice, the
// pairs are held in Pairs instead, as a document read back holds them.
func buildDoc(tb testing.TB, n, resultBytes int, slice bool) *Document {
	count, at, err := rounds(PatternPairs, n)
	if err != nil {
		tb.Fatal(err)
	}
	members := make([]Member, n)
	for r := range members {
		members[r] = testMember(r)
		members[r].Rank = r
	}
	doc := &Document{Members: members, Schedule: ScheduleInfo{Pattern: PatternPairs, Rounds: count, Pairs: n * (n - 1)}}
	if !slice {
		if doc.log, err = NewPairLog(tb.TempDir()); err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { doc.Close() })
	}
	sw := &sweeper{s: &Session{Members: members}, intern: map[string]string{}, doc: doc}
	reports := make([]*doneMsg, n)
	for i := range count {
		for _, p := range at(i) {
			var result json.RawMessage
			if resultBytes > 0 {
				result = make(json.RawMessage, resultBytes) // {"x":"aaa..."}
				copy(result, `{"x":"`)
				for j := 6; j < resultBytes-2; j++ {
					result[j] = 'a'
				}
				copy(result[resultBytes-2:], `"}`)
			}
			slow := 1.0
			if p.Src == 2 {
				slow = 2
			}
			reports[p.Src] = &doneMsg{Round: i + 1, ElapsedNS: 1e10, Result: result, Figures: map[string]float64{
				"write_lat.p50_us": 1.5 * slow, "write_lat.p99_us": 2.5 * slow, "write_bw.bw_gbps": 97.5 / slow, "write_bw.msg_rate_mpps": 1.49,
			}}
			reports[p.Dst] = &doneMsg{Round: i + 1}
			o := PairOutcome{Round: i + 1, Src: p.Src, Dst: p.Dst}
			sw.resolve(&o, reports)
			if slice {
				doc.Pairs = append(doc.Pairs, o)
			} else if err := doc.log.Add(&o); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return doc
}

func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// grown is how much the heap grew since before; 0 when it shrank (the
// collector freed what an earlier step left).
func grown(before uint64) uint64 {
	if now := heapAlloc(); now > before {
		return now - before
	}
	return 0
}

// BenchmarkRank0Memory1024 reports rank 0's heap for the results of a
// 1024-rank pairs sweep (1024*1023 pairs) as the sweep ends, without and
// with a 512-byte result per pair, then what the outputs take while they
// are drawn: a metric's matrix and suspects, the JSON document. Run:
// go test -run '^$' -bench Memory1024 -benchtime 1x ./pkg/fabric
func BenchmarkRank0Memory1024(b *testing.B) {
	const n = 1024
	for _, resultBytes := range []int{0, 512} {
		b.Run(fmt.Sprintf("result_%dB", resultBytes), func(b *testing.B) {
			for b.Loop() {
				before := heapAlloc()
				doc := buildDoc(b, n, resultBytes, false)
				held := grown(before)
				if doc.PairCount() != n*(n-1) {
					b.Fatalf("%d pairs", doc.PairCount())
				}
				b.ReportMetric(float64(held)/(1<<20), "MiB_held")
				var peak uint64
				for _, metric := range doc.Metrics() {
					m := doc.Matrix(metric)
					peak = max(peak, grown(before))
					runtime.KeepAlive(m)
				}
				if _, err := FindSuspects(doc, OutlierOptions{ThresholdPct: 20}); err != nil {
					b.Fatal(err)
				}
				cw := &countWriter{}
				if err := WriteJSON(cw, doc); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(peak)/(1<<20), "MiB_matrix")
				b.ReportMetric(float64(cw.n)/(1<<20), "MiB_json")
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

// TestRank0MemoryBounded: what rank 0 holds of a sweep's pairs does not
// grow with them: the pairs of 32 and of 128 ranks (992 and 16,256 pairs,
// a 512-byte result each, 8.5 MB of JSON at 128) leave the same heap,
// under 256 KiB; before the pair log the pairs were held, about 210 bytes
// a pair beside their results.
func TestRank0MemoryBounded(t *testing.T) {
	var held []uint64
	for _, n := range []int{32, 128} {
		before := heapAlloc()
		doc := buildDoc(t, n, 512, false)
		h := grown(before)
		if doc.PairCount() != n*(n-1) || doc.FailedCount() != 0 || len(doc.Metrics()) != 4 {
			t.Fatalf("%d pairs, %d failed, metrics %v", doc.PairCount(), doc.FailedCount(), doc.Metrics())
		}
		held = append(held, h)
		t.Logf("%d ranks, %d pairs: %d KiB held", n, doc.PairCount(), h>>10)
		runtime.KeepAlive(doc)
	}
	if held[1] > 256<<10 {
		t.Errorf("rank 0 holds %d KiB for 16,256 pairs: want the pairs in the log, not in memory", held[1]>>10)
	}
}

// TestPairLogDocument: a document whose pairs are in the pair log gives
// what the same document holding them gives: the same JSON, byte for
// byte (streamed or marshalled), matrices, suspects, counts and findings.
func TestPairLogDocument(t *testing.T) {
	logged, held := buildDoc(t, 9, 40, false), buildDoc(t, 9, 40, true)
	// One failed pair in each.
	bad := PairOutcome{Round: 99, Src: 3, Dst: 5, Status: StatusFailed, Error: "rank 5 left the sweep"}
	if err := logged.log.Add(&bad); err != nil {
		t.Fatal(err)
	}
	held.Pairs = append(held.Pairs, bad)
	var a, b bytes.Buffer
	if err := WriteJSON(&a, logged); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&b, held); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("streamed JSON differs from the held document's:\n%s\n---\n%s", a.String(), b.String())
	}
	ma, err := json.Marshal(logged)
	if err != nil {
		t.Fatal(err)
	}
	mb, _ := json.Marshal(held)
	if !bytes.Equal(ma, mb) {
		t.Error("MarshalJSON differs")
	}
	if logged.PairCount() != 73 || logged.FailedCount() != 1 || held.FailedCount() != 1 {
		t.Errorf("%d pairs, %d and %d failed", logged.PairCount(), logged.FailedCount(), held.FailedCount())
	}
	for _, metric := range held.Metrics() {
		if !sameMatrix(logged.Matrix(metric), held.Matrix(metric)) {
			t.Errorf("%s: matrices differ", metric)
		}
	}
	sa, err := FindSuspects(logged, OutlierOptions{ThresholdPct: 20})
	if err != nil {
		t.Fatal(err)
	}
	sb, _ := FindSuspects(held, OutlierOptions{ThresholdPct: 20})
	if len(sa) == 0 || !reflect.DeepEqual(sa, sb) {
		t.Errorf("suspects %+v\nwant %+v", sa, sb)
	}
	var fa, fb bytes.Buffer
	if err := WriteFindings(&fa, logged, 5); err != nil {
		t.Fatal(err)
	}
	WriteFindings(&fb, held, 5)
	if fa.String() != fb.String() {
		t.Errorf("findings differ:\n%s\n---\n%s", fa.String(), fb.String())
	}
	if err := WriteJSON(io.Discard, logged); err != nil || logged.Err() != nil {
		t.Fatal(err, logged.Err())
	}
	if err := logged.Close(); err != nil {
		t.Fatal(err)
	}
}

func sameMatrix(a, b *Matrix) bool {
	if len(a.Values) != len(b.Values) {
		return false
	}
	for i := range a.Values {
		if a.State[i] != b.State[i] || !(a.Values[i] == b.Values[i] || math.IsNaN(a.Values[i]) && math.IsNaN(b.Values[i])) {
			return false
		}
	}
	return true
}
