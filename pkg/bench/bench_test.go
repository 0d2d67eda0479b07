package bench

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

func flagSet(t *testing.T, args ...string) *Flags {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	var b Flags
	b.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return &b
}

func isInput(err error) bool { return inputerr.Is(err) }

func TestSizes(t *testing.T) {
	if s, err := flagSet(t).Sizes(); s != nil || err != nil {
		t.Errorf("no -a: %v, %v", s, err)
	}
	s, err := flagSet(t, "-a", "--sweep-min", "1K", "--sweep-max", "4K").Sizes()
	if err != nil || len(s) != 3 || s[0] != 1024 || s[2] != 4096 {
		t.Errorf("-a 1K..4K: %v, %v", s, err)
	}
	for _, args := range [][]string{{"-a", "-s", "64"}, {"-a", "--sweep-min", "x"}, {"-a", "--sweep-max", "x"}} {
		if _, err := flagSet(t, args...).Sizes(); !isInput(err) {
			t.Errorf("%q: %v, want bad input", args, err)
		}
	}
}

func TestRunSpecs(t *testing.T) {
	b := flagSet(t, "--rate", "1000,2000")
	specs := b.RunSpecs("write_lat", []int{64, 128})
	if len(specs) != 6 || specs[0].Rate != 0 || specs[0].Size != 64 || specs[3].Size != 128 || specs[0].Workload != "write_lat" {
		t.Errorf("%+v", specs)
	}
	if err := b.OneRate("server"); !isInput(err) {
		t.Errorf("a --rate list for the server: %v", err)
	}
}

func TestRepeatCheck(t *testing.T) {
	for _, c := range []struct {
		r  Repeat
		ok bool
	}{{Repeat{N: 1}, true}, {Repeat{N: 1000, Label: "fw 1.2"}, true}, {Repeat{N: 0}, false}, {Repeat{N: 1001}, false},
		{Repeat{N: 1, Label: "a/b"}, false}, {Repeat{N: 1, Label: strings.Repeat("x", 65)}, false}, {Repeat{N: 1, Label: "a\tb"}, false}} {
		if err := c.r.Check(); (err == nil) != c.ok || err != nil && !isInput(err) {
			t.Errorf("%+v: %v", c.r, err)
		}
	}
}

func TestTargets(t *testing.T) {
	if at, w, err := RunTarget([]string{"write_lat", "[::1]"}, false); err != nil || at.Host != "::1" || w != "write_lat" {
		t.Errorf("run write_lat [::1]: %+v %q %v", at, w, err)
	}
	for _, c := range []struct {
		args     []string
		loopback bool
	}{{nil, true}, {[]string{"a", "b", "c"}, false}, {[]string{"a", "b"}, true}, {[]string{"a"}, false}, {[]string{"a", "x:1"}, false}, {[]string{"a", "[]"}, false}} {
		if _, _, err := RunTarget(c.args, c.loopback); !isInput(err) {
			t.Errorf("run %q loopback %t: %v, want bad input", c.args, c.loopback, err)
		}
	}
	if at, err := SuiteTarget(nil, true); err != nil || !at.Loopback {
		t.Errorf("suite --loopback: %+v %v", at, err)
	}
	if _, err := SuiteTarget([]string{"h"}, true); !isInput(err) {
		t.Errorf("suite h --loopback: %v", err)
	}
}

func TestMarkShort(t *testing.T) {
	m := &report.Result{Status: report.StatusPartial, Reason: "cut"}
	markShort(m, 1, 3, errors.New("boom"))
	if m.Status != report.StatusPartial || m.Reason != "cut; 1 of 3 runs measured: boom" {
		t.Errorf("%s: %q", m.Status, m.Reason)
	}
}

type panicEncoder struct{}

func (panicEncoder) Encode(io.Writer, *report.Document) error { panic("oops") }

func TestEncodeSafely(t *testing.T) {
	enc, err := report.NewEncoder("json")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := encodeSafely(enc, &buf, &report.Document{}); err != nil || buf.Len() == 0 {
		t.Errorf("json: %v, %d bytes", err, buf.Len())
	}
	if err := encodeSafely(panicEncoder{}, &buf, &report.Document{}); err == nil || !strings.Contains(err.Error(), "a bug: oops") {
		t.Errorf("a panicking encoder: %v", err)
	}
}

func TestOutputCheck(t *testing.T) {
	o := Output{Format: "16", Results: "results"}
	if err := o.Check(); !isInput(err) || !strings.Contains(err.Error(), "perftest's -o/--outs 16?") {
		t.Errorf("-o 16: %v", err)
	}
	o = Output{Format: "json", Samples: "-"}
	if err := o.Check(); !isInput(err) {
		t.Errorf("--samples -: %v", err)
	}
}

// Finish: an empty document writes nothing; one with a result writes the format
// to --output-file and names what --save saved on log.
func TestOutputFinish(t *testing.T) {
	dir := t.TempDir()
	o := Output{Format: "json", File: dir + "/out.json", Save: true, Results: dir}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if err := o.Finish(&report.Document{}, &log); err != nil || log.Len() != 0 {
		t.Errorf("empty: %v, log %q", err, log.String())
	}
	o = Output{Format: "json", File: dir + "/out.json", Save: true, Results: dir}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	doc := NewDocument(report.Tool{Name: "rdma-bench"}, []string{"rdma-bench", "run"})
	doc.Results = []*report.Result{{Status: report.StatusOK}}
	if err := o.Finish(doc, &log); err != nil || !strings.HasPrefix(log.String(), "saved "+dir) {
		t.Errorf("finish: %v, log %q", err, log.String())
	}
	if b, err := os.ReadFile(dir + "/out.json"); err != nil || !bytes.Contains(b, []byte(`"rdma-bench"`)) {
		t.Errorf("--output-file: %v, %.80q", err, b)
	}
}

// wrapEncoder stands for a caller's wrapper of Output.Enc (run's --plot).
type wrapEncoder struct{ report.Encoder }

// Finish with -o perftest: the output holds perftest's columns only; the
// caveats of its rows go to the log once it is written, even through a
// wrapped encoder.
func TestOutputFinishPerftestNotes(t *testing.T) {
	dir := t.TempDir()
	o := Output{Format: "perftest", File: dir + "/out.txt"}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	o.Enc = wrapEncoder{o.Enc}
	doc := NewDocument(report.Tool{Name: "rdma-bench"}, []string{"rdma-bench", "run"})
	r := &report.Result{Kind: report.Bandwidth, Status: report.StatusPartial, Reason: "interrupted: interrupt received"}
	r.Workload, r.SizeBytes, r.Iterations, r.Ops, r.Bytes, r.ElapsedNS = "write_bw", 65536, 300, 120, 120*65536, 1e6
	doc.Results = []*report.Result{r}
	var log bytes.Buffer
	if err := o.Finish(doc, &log); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dir + "/out.txt")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "interrupted") || !strings.Contains(string(b), "\n 65536      120 ") {
		t.Errorf("output:\n%s", b)
	}
	want := "rdma-bench: partial: write_bw 65536 bytes: interrupted: interrupt received\n" +
		"rdma-bench: #iterations: write_bw 65536 bytes: 120 is the operations measured (every queue pair, thread, direction and run together), not the 300 iterations asked\n"
	if log.String() != want {
		t.Errorf("log:\n%s\nwant:\n%s", log.String(), want)
	}
}
