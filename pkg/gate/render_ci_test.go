package gate

import (
	"bytes"
	"encoding/xml"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// TestCIFormats: -o markdown and -o junit say what the table says: a row
// per point with its decision, the notes (unclean runs among them) and
// the summary; an undecided point is a JUnit failure, as it is exit 3.
func TestCIFormats(t *testing.T) {
	c := testConfig(t, "write_lat:64", "write_bw:4K")
	d, err, _ := runFake(t, c, &fakeRunner{rng: rand.New(rand.NewPCG(3, 3)), factor: 1.3, noise: 0.01, secs: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows[0].Decision != compare.Fail {
		t.Fatalf("a 30%% slowdown: %s, want fail", d.Rows[0].Decision)
	}
	d.Rows[1].Decision = compare.Undecided // as a noisier day gives

	var md bytes.Buffer
	if err := WriteOutput(&md, d, "markdown", false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Gate\n", "**gate fail (exit 1)**: write_lat 64 B lat.p50 +", "| point | metric | pairs |",
		"| write_lat 64 B | lat.p50 (us) |", "| **fail** |", "| write_bw 4 KiB | bw (Gb/s) |", "| undecided |",
		"runs not clean (the port counters moved: retransmissions)", "_paired gate, pairs in turn (the runner makes one run at a time), thresholds lat.p50&gt;+5%,bw&lt;-5%;"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	for i, line := range strings.Split(md.String(), "\n") {
		if strings.HasPrefix(line, "| ") && strings.Count(line, " | ") != len(columns)-1 {
			t.Errorf("markdown line %d has %d cells, want %d: %s", i+1, strings.Count(line, " | ")+1, len(columns), line)
		}
	}

	var ju bytes.Buffer
	if err := WriteOutput(&ju, d, "junit", false); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Props []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Failure   *struct {
					Type    string `xml:"type,attr"`
					Message string `xml:"message,attr"`
				} `xml:"failure"`
				Out string `xml:"system-out"`
			} `xml:"testcase"`
			Out string `xml:"system-out"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(ju.Bytes(), &doc); err != nil {
		t.Fatalf("junit does not parse: %v\n%s", err, ju.String())
	}
	cs := doc.Suite.Cases
	if doc.Tests != 2 || doc.Failures != 2 || len(cs) != 2 {
		t.Fatalf("junit: %d tests, %d failures, %d cases; want 2, 2, 2\n%s", doc.Tests, doc.Failures, len(cs), ju.String())
	}
	if cs[0].Classname != "write_lat 64 B" || cs[0].Name != "lat.p50" || cs[0].Failure == nil || cs[0].Failure.Type != "regression" {
		t.Errorf("first case %+v, want write_lat 64 B lat.p50 failing as a regression", cs[0])
	}
	if cs[1].Failure == nil || cs[1].Failure.Type != "undecided" || !strings.Contains(cs[1].Failure.Message, "undecided") {
		t.Errorf("second case %+v, want an undecided failure", cs[1])
	}
	if !strings.Contains(cs[0].Out, "pair spread (p10, p90): [") || !strings.Contains(doc.Suite.Out, "gate fail (exit 1)") {
		t.Errorf("system-out lacks the cells or the summary:\n%s", ju.String())
	}

	if err := WriteOutput(&bytes.Buffer{}, d, "xml", false); err == nil || err.Error() != "-o xml: want table, json, markdown, junit" {
		t.Errorf("-o xml: %v", err)
	}
}

// TestParse: a saved gate reads back; another kind, another schema, or
// rows whose sides disagree are refused by name.
func TestParse(t *testing.T) {
	c := testConfig(t, "write_lat:64")
	d, err, _ := runFake(t, c, &fakeRunner{rng: rand.New(rand.NewPCG(5, 5)), factor: 1, noise: 0.01, secs: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	d.Kind, d.SchemaVersion = document.KindGate, SchemaVersion
	b, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if back, err := Parse(b); err != nil || len(back.Rows) != 1 || back.Rows[0].Pairs != d.Rows[0].Pairs {
		t.Fatalf("read back: %v", err)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"kind": "gate"`, `"kind": "fabric"`, `kind "fabric": want "gate"`},
		{`"schema_version": 2`, `"schema_version": 9`, "schema_version 9: this rdma-bench reads gate documents of version 2"},
		{`"candidate": [`, `"candidate": [1,`, "rows[0] (write_lat 64 B): 10 base values and 11 candidate values"},
	} {
		if _, err := Parse(bytes.Replace(b, []byte(c.from), []byte(c.to), 1)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s -> %s: %v, want %q", c.from, c.to, err, c.want)
		}
	}
}
