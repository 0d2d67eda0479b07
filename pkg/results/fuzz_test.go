package results

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// Fuzzing: make fuzz runs every Fuzz target of the repository for a short
// time (scripts/fuzz.sh); one of these alone:
//
//	go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 30s -fuzzminimizetime 5s ./pkg/results
//
// (without -fuzzminimizetime each new input of a large seed is minimized
// for up to a minute, which a short run spends doing nothing else)

// seedDocuments adds every document of testdata (good and refused ones)
// and, made from a good one, the inputs a parser gets wrong: cut short at
// several places, nested past any sane depth, of another schema version,
// a latency result marked bandwidth, numbers out of range, duplicate keys;
// and the gate's and fabric's documents.
func seedDocuments(f *testing.F) {
	var good []byte
	for _, pattern := range []string{"testdata/*.json", "testdata/base/*.json", "testdata/new/*.json"} {
		names, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
			if filepath.Base(name) == "hist-runs.json" {
				good = b
			}
		}
	}
	if good == nil {
		f.Fatal("testdata/hist-runs.json is missing")
	}
	for _, cut := range []int{1, len(good) / 3, len(good) / 2, len(good) - 2} {
		f.Add(good[:cut])
	}
	f.Add([]byte(strings.Repeat("[", 20000) + strings.Repeat("]", 20000)))
	f.Add([]byte(`{"tool":{"name":"rdma-bench"},"schema_version":2,"results":[` + strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000) + "]}"))
	for _, v := range []string{`1`, `3`, `2.5`, `"2"`, `null`, `1e400`, `-2`} {
		f.Add(bytes.Replace(good, []byte(`"schema_version": 2`), []byte(`"schema_version": `+v), 1))
	}
	f.Add(bytes.Replace(good, []byte(`"kind": "latency"`), []byte(`"kind": "bandwidth"`), 1))
	f.Add([]byte(`{"kind": "gate", "schema_version": 1, "tool": {"name": "rdma-bench"}, "rows": []}`))
	f.Add([]byte(`{"tool": "rdma-bench", "version": "0.3.0", "world": {"size": 2}, "pairs": null}`))
	f.Add(bytes.Replace(good, []byte(`"bw_gbps": null`), []byte(`"bw_gbps": 1e308`), -1))
	f.Add(bytes.Replace(good, []byte(`"size_bytes": 8`), []byte(`"size_bytes": 99999999999999999999`), 1))
	f.Add(bytes.Replace(good, []byte(`"runs": [`), []byte(`"runs": null, "runs": [`), 1))
	f.Add(bytes.Replace(good, []byte(`"histogram": "`), []byte(`"histogram": "HISTFAAAA`), -1))
}

// FuzzParse: Parse never panics or hangs, whatever the bytes. What it
// refuses gets an error that says what is wrong in words of its own (not
// bare encoding/json text), in lower case; what it accepts holds at least
// one result, none null, and the views that compare, plot and report draw
// from documents (pooling, sides, every chart and table, the metadata)
// do not panic on it either: they may refuse it with an error.
func FuzzParse(f *testing.F) {
	seedDocuments(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Parse(b)
		if err != nil {
			checkErrorText(t, err)
			return
		}
		if len(d.Results) == 0 {
			t.Fatal("accepted a document without results")
		}
		for i, r := range d.Results {
			if r == nil {
				t.Fatalf("accepted results[%d] = null", i)
			}
		}
		docs := []*document.Document{d}
		_ = Meta(docs)
		caption := CaptionOf(docs)
		for _, opt := range []Options{{}, {AllowPartial: true, CleanOnly: true}} {
			pts, err := Pool(docs, opt)
			if err != nil {
				checkErrorText(t, err)
				continue
			}
			if m, err := Match(pts, pts, nil); err == nil {
				_ = MetaDiff(docs, docs, m)
			} else {
				checkErrorText(t, err)
			}
			for _, p := range pts {
				if _, err := p.Histogram(); err != nil {
					checkErrorText(t, err)
				}
			}
			sides, err := Groups(docs, nil, opt)
			if err != nil {
				checkErrorText(t, err)
				continue
			}
			if _, err := Charts(context.Background(), sides, ChartOptions{}, caption); err != nil {
				checkErrorText(t, err)
			}
			for _, s := range sides {
				_, _ = LatencyTable(s), BandwidthTable(s)
			}
		}
	})
}

// checkErrorText fails unless err reads as this package's own message.
func checkErrorText(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	r, _ := utf8.DecodeRuneInString(msg)
	if msg == "" || strings.HasPrefix(msg, "json:") || unicode.IsUpper(r) {
		t.Fatalf("error %q: want one naming the problem, in lower case", msg)
	}
}

// FuzzDecodeHistogram: a document's histogram string, whatever it holds,
// decodes or gives an error; never a panic.
func FuzzDecodeHistogram(f *testing.F) {
	f.Add("HISTFAAAAEx42pJpmSzMwMBYwAABzFCakYGB2c1gxwIG+w8QgXYZFjYohDNwMYlQQjszaKKRi4uLgwsBOAgxcapgE2RSxQKVMUQAAQAA//+4hA/9")
	f.Add("HISTFAAAAA==")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		h, err := DecodeHistogram(s)
		if err != nil {
			checkErrorText(t, err)
			return
		}
		_ = h.ValueAtQuantile(50)
	})
}

// TestParseHostile: the fuzz seeds' kinds of damage get errors that say
// where and what: a document cut short (the line and column where it
// ends), nested 20,000 deep (encoding/json's depth limit, 10,000, at the
// column it is reached), of another schema version, with a size that
// fits no integer.
func TestParseHostile(t *testing.T) {
	good, err := os.ReadFile("testdata/hist-runs.json")
	if err != nil {
		t.Fatal(err)
	}
	version := func(v string) []byte {
		return bytes.Replace(good, []byte(`"schema_version": 2`), []byte(`"schema_version": `+v), 1)
	}
	for _, c := range []struct {
		doc  []byte
		want string
	}{
		{good[:len(good)/2], "not JSON: unexpected end of JSON input (line 106, column 12)"},
		{[]byte(strings.Repeat("[", 20000) + strings.Repeat("]", 20000)),
			"not JSON: invalid character '[' exceeded max depth (line 1, column 10001)"},
		{version("3"), "schema_version 3 is newer than this rdma-bench reads (2): read it with the rdma-bench that wrote it, or a newer one"},
		{version("1e400"), "schema_version 1e400: want the whole number 2"},
		{bytes.Replace(good, []byte(`"size_bytes": 8`), []byte(`"size_bytes": 99999999999999999999`), 1),
			"results.size_bytes: number 99999999999999999999 is out of range: want a whole number"},
	} {
		if _, err := Parse(c.doc); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}
