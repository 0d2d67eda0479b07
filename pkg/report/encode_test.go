package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

func encode(t *testing.T, name string, doc *Document) []byte {
	t.Helper()
	enc, err := NewEncoder(name)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := enc.Encode(&buf, doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return buf.Bytes()
}

// builtin are the encoders this package registers.
var builtin = []string{"table", "json", "csv", "hgrm", "perftest"}

func TestEncodersGolden(t *testing.T) {
	golden := map[string]string{"table": "sweep.txt", "json": "sweep.json", "csv": "sweep.csv", "hgrm": "sweep.hgrm", "perftest": "sweep.perftest"}
	if !slices.Equal(Encoders()[:len(builtin)], builtin) {
		t.Fatalf("encoders %v, want the built-in ones first: %v", Encoders(), builtin)
	}
	for _, name := range builtin {
		t.Run(name, func(t *testing.T) {
			checkGolden(t, golden[name], encode(t, name, fixtureDocument()))
		})
	}
}

func TestNewEncoderUnknown(t *testing.T) {
	_, err := NewEncoder("xml")
	const want = `unknown output "xml": choose one of table, json, csv, hgrm, perftest, comparison, ndjson`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
	if _, err := NewEncoder(DefaultEncoder); err != nil {
		t.Error(err)
	}
}

func TestEncodersNilDocument(t *testing.T) {
	for _, name := range builtin {
		enc, _ := NewEncoder(name)
		if err := enc.Encode(&bytes.Buffer{}, nil); err == nil {
			t.Errorf("%s: no error for a nil document", name)
		}
	}
}

func TestEncodersReportWriteErrors(t *testing.T) {
	for _, name := range builtin {
		enc, _ := NewEncoder(name)
		if err := enc.Encode(failWriter{}, fixtureDocument()); !errors.Is(err, errDiskFull) {
			t.Errorf("%s: err = %v, want the write error", name, err)
		}
	}
}

var errDiskFull = errors.New("disk full")

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errDiskFull }

// decoded is fixtureDocument written by the json encoder and read back
// by pkg/document's reader: the writer and the reader tied together.
func decoded(t *testing.T, b []byte) *document.Document {
	t.Helper()
	d, err := document.Parse(b)
	if err != nil {
		t.Fatalf("the reader refuses what the writer wrote: %v", err)
	}
	return d
}

func TestJSONKeepsEverySizeOfTheSweep(t *testing.T) {
	doc := fixtureDocument()
	got := decoded(t, encode(t, "json", doc))
	if got.SchemaVersion != document.SchemaVersion || len(got.Results) != len(doc.Results) {
		t.Fatalf("schema %d, %d results, want %d and %d", got.SchemaVersion, len(got.Results), document.SchemaVersion, len(doc.Results))
	}
	var sizes []int
	for i, r := range got.Results {
		sizes = append(sizes, r.SizeBytes)
		if r.Param("size_bytes") != fmt.Sprint(doc.Results[i].SizeBytes) || r.Param("workload") != r.Workload {
			t.Errorf("result %d: params %v", i, r.Params)
		}
	}
	if want := []int{2, 64, 4096, 65536, 1048576, 64}; !slices.Equal(sizes, want) {
		t.Errorf("sizes %v, want %v", sizes, want)
	}
	lat := got.Results[0]
	if lat.LatencyUS == nil || *lat.LatencyUS.Max != 25 || *lat.LatencyUS.P99_9 != 18 || lat.Samples != 1000 || lat.Runs[0].Samples != 1000 {
		t.Errorf("latency result: %+v", lat.LatencyUS)
	}
	if sd := *got.Results[1].LatencyUS.Stdev; sd != 0.0005 {
		t.Errorf("jitter stdev = %v us, want 0.0005", sd)
	}
	if got.Results[2].OutOfRange != 3 || got.Results[2].Samples != 20000 {
		t.Errorf("duration result: out of range %d samples %d", got.Results[2].OutOfRange, got.Results[2].Samples)
	}
	bw := got.Results[3]
	if bw.LatencyUS != nil || bw.BwGbps == nil || bw.CPU.Remote == nil || bw.CPUSPerGB.Remote == nil || bw.IsLatency() {
		t.Errorf("bandwidth result: %+v", bw)
	}
	if tcp := got.Results[5]; tcp.CPU.Local == nil || tcp.CPU.Remote != nil || tcp.BwGbps != nil || !tcp.IsTCP() {
		t.Errorf("tcp result: %+v", tcp)
	}
	// The figures read are the ones the table shows.
	for i, r := range doc.Results {
		s := Summarize(r)
		if s.Latency != nil && *got.Results[i].LatencyUS.P50 != s.Latency.P50US() {
			t.Errorf("result %d: p50 %v read, %v measured", i, *got.Results[i].LatencyUS.P50, s.Latency.P50US())
		}
		if s.Bandwidth != nil && *got.Results[i].BwGbps != s.Bandwidth.BwGbps {
			t.Errorf("result %d: %v Gb/s read, %v measured", i, *got.Results[i].BwGbps, s.Bandwidth.BwGbps)
		}
	}
}

func TestJSONEmptyDocument(t *testing.T) {
	out := string(encode(t, "json", &Document{Results: []*Result{nil}}))
	for _, want := range []string{`"results": []`, `"args": []`, fmt.Sprintf(`"schema_version": %d`, document.SchemaVersion)} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
	if strings.Contains(out, `"device"`) {
		t.Errorf("device present for a run without one:\n%s", out)
	}
}

func TestJSONServerFigures(t *testing.T) {
	srv := &Result{Bytes: 100, ElapsedNS: 10, CPU: CPUPair{Local: &CPUUsage{UserS: 1}}}
	srv.Server = srv // a cycle must not recurse forever
	r := &Result{Bytes: 100, Ops: 1, ElapsedNS: 10, Server: srv}
	out := string(encode(t, "json", &Document{Results: []*Result{r}}))
	if !strings.Contains(out, `"server": {`) || strings.Count(out, `"server"`) != 1 {
		t.Errorf("server figures:\n%s", out)
	}
}

func TestCSVShape(t *testing.T) {
	rows, err := csv.NewReader(bytes.NewReader(encode(t, "csv", fixtureDocument()))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 {
		t.Fatalf("%d rows, want header + 6", len(rows))
	}
	for _, col := range []string{"lat_p99_9_us", "bw_gbps", "bw_mibps", "msg_rate_mpps", "cpu_local_pct_core", "cpu_remote_pct_core"} {
		if !slices.Contains(rows[0], col) {
			t.Errorf("header lacks %s: %v", col, rows[0])
		}
	}
}

func TestHgrmEmpty(t *testing.T) {
	if out := string(encode(t, "hgrm", &Document{})); out != "# no latency results\n" {
		t.Errorf("got %q", out)
	}
}

// -o ndjson's last record is the document of -o json, on one line.
func TestStreamEncoderLastRecord(t *testing.T) {
	b := encode(t, StreamEncoder, fixtureDocument())
	if bytes.Count(b, []byte("\n")) != 1 || !bytes.HasSuffix(b, []byte("\n")) {
		t.Fatalf("not one line: %q", b)
	}
	var rec document.StreamDocument
	if err := json.Unmarshal(b, &rec); err != nil || rec.Type != document.RecordDocument || rec.Document == nil {
		t.Fatalf("record: %v %+v", err, rec.Type)
	}
	var indented bytes.Buffer
	if err := document.Encode(&indented, rec.Document); err != nil {
		t.Fatal(err)
	}
	if want := encode(t, "json", fixtureDocument()); !bytes.Equal(indented.Bytes(), want) {
		t.Errorf("the record's document differs from -o json's:\n%s\nwant\n%s", indented.Bytes(), want)
	}
	r, err := ResultRecord(fixtureDocument().Results[0])
	if err != nil || r.Workload != "write_lat" || len(r.Runs) != 1 {
		t.Errorf("point record: %+v, %v", r, err)
	}
}
