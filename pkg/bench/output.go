package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/catalog"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/perftestflags"
	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// Output is how results are written: the flags that choose it, and the
// output file once open.
type Output struct {
	Format  string
	File    string
	Save    bool
	Results string
	Samples string         // --samples: every latency sample, as CSV
	Enc     report.Encoder // Format's, set by Check; a caller may wrap it
	// Stdout is where the output goes without --output-file (os.Stdout
	// when nil): a command run in-process writes to its caller's writer.
	Stdout io.Writer
	out    *outfile.File // the --output-file, once open
	// noter is Format's encoder when its format has no room for the
	// caveats (-o perftest): set by Check, before a caller wraps Enc.
	noter report.Noter

	jsonStream bool            // --json-stream: iperf3's -o ndjson
	fs         *pflag.FlagSet  // whether -o was given
	stream     *outfile.Stream // -o ndjson's output, written as the run goes
	mu         sync.Mutex      // one record at a time
	streamErr  error           // the first record that could not be written
}

// Register adds the output flags to fs, -o defaulting to defaultFormat.
func (o *Output) Register(fs *pflag.FlagSet, defaultFormat string) {
	fs.StringVarP(&o.Format, "output", "o", defaultFormat, "output format: "+formatList())
	fs.StringVar(&o.File, "output-file", "", "write the output to this file instead of standard output: "+outfile.Rules)
	fs.BoolVar(&o.Save, "save", false, "also save the JSON document under --results-dir")
	fs.StringVar(&o.Results, "results-dir", "results", "where --save writes")
	fs.StringVar(&o.Samples, "samples", "", "also write every latency sample (ns) to this CSV file, to check the percentiles against (with -D, kept in memory beside the histogram: 8 bytes a sample)")
	fs.BoolVar(&o.jsonStream, "json-stream", false, "iperf3's spelling of -o "+report.StreamEncoder+": one JSON record a line as the run goes, the document last")
	o.fs = fs
}

func formatList() string {
	s := ""
	for i, n := range report.Encoders() {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// Check checks the format, and that --save can write, before anything
// else.
func (o *Output) Check() error {
	if o.jsonStream {
		if o.fs != nil && o.fs.Changed("output") && o.Format != report.StreamEncoder {
			return inputError("--json-stream is -o %s: it cannot go with -o %s", report.StreamEncoder, o.Format)
		}
		o.Format = report.StreamEncoder
	}
	enc, err := report.NewEncoder(o.Format)
	if err != nil {
		if h := perftestflags.Collision("output", o.Format); h != "" {
			return inputError("%v; %s", err, h)
		}
		return inputError("%v", err)
	}
	o.Enc = enc
	o.noter, _ = enc.(report.Noter)
	if o.Save {
		if err := outfile.CheckDir(o.Results); err != nil {
			return inputError("--results-dir: %v", err)
		}
	}
	if o.Samples == "-" {
		return inputError("--samples -: give a file; standard output has the report")
	}
	for _, f := range []struct{ flag, path string }{{"output-file", o.File}, {"samples", o.Samples}} {
		if f.path != "" {
			// Created for real once the run is done (Finish).
			if err := outfile.Check(f.path); err != nil {
				return inputError("--%s %v", f.flag, err)
			}
		}
	}
	return nil
}

// CheckWorkload refuses, before anything runs, a format that would write
// nothing of w: hgrm holds latency histograms only, and comparison puts
// an RDMA workload beside its TCP baseline. The refusal names the formats
// that w can have.
func (o *Output) CheckWorkload(w catalog.Workload) error {
	if o.Format == report.ComparisonEncoder && !writes(report.ComparisonEncoder, w) {
		return inputError("-o %s puts an RDMA workload beside its TCP baseline, and %s has none (it is a baseline itself, or has no TCP counterpart): "+
			"choose an RDMA workload, or -o %s", report.ComparisonEncoder, w.Name, strings.Join(formatsFor(w), ", "))
	}
	if o.Format == "hgrm" && !writes("hgrm", w) {
		return inputError("-o hgrm writes latency histograms and %s measures bandwidth: choose a latency workload, or -o %s", w.Name, strings.Join(formatsFor(w), ", "))
	}
	return nil
}

// writes tells whether the format writes something of w.
func writes(format string, w catalog.Workload) bool {
	switch format {
	case report.ComparisonEncoder:
		_, ok := catalog.Baseline(w.Name)
		return ok
	case "hgrm":
		return w.Latency()
	}
	return true
}

// formatsFor are the formats that write something of w.
func formatsFor(w catalog.Workload) []string {
	var out []string
	for _, n := range report.Encoders() {
		if writes(n, w) {
			out = append(out, n)
		}
	}
	return out
}

// Open starts the output file before anything runs, so that an
// unwritable file fails early; a streamed document's is written from now
// on.
func (o *Output) Open() error {
	stdout := o.Stdout
	if stdout == nil {
		stdout = os.Stdout
	}
	var err error
	if o.Streaming() {
		o.stream, err = outfile.CreateStreamTo(o.File, stdout)
	} else {
		o.out, err = outfile.CreateTo(o.File, stdout)
	}
	if err != nil {
		return inputError("--output-file %v", err)
	}
	return nil
}

// Streaming says whether the output is a streamed document (-o ndjson),
// whose records Record writes as the run goes.
func (o *Output) Streaming() bool { return o.Format == report.StreamEncoder }

// Record writes one record of a streamed document at once (nothing when
// the output is not one). A record that cannot be written does not stop
// the run: Finish returns the first such error.
func (o *Output) Record(v any) {
	if o.stream == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := document.EncodeRecord(o.stream, v); err != nil && o.streamErr == nil {
		o.streamErr = err
	}
}

// Finish writes what was measured: the JSON document first (--save), so
// that no failure of an output format can lose the measurements, then the
// chosen format. A format that fails, even by a bug that panics, leaves the
// document saved: under --results-dir when --save was not given. What it
// saved is named on log.
func (o *Output) Finish(doc *report.Document, log io.Writer) error {
	if o.out == nil && o.stream == nil {
		if err := o.Open(); err != nil {
			return err
		}
	}
	if o.stream != nil {
		return o.finishStream(doc, log)
	}
	if len(doc.Results) == 0 {
		o.out.Abort()
		return nil
	}
	saved := ""
	var errs []error
	if o.Save {
		path, err := report.SaveJSON(o.Results, doc)
		if err != nil {
			errs = append(errs, err)
		} else {
			saved = path
			fmt.Fprintf(log, "saved %s\n", path)
		}
	}
	if o.Samples != "" {
		if err := writeSamples(o.Samples, doc); err != nil {
			errs = append(errs, err)
		}
	}
	var buf bytes.Buffer
	if err := encodeSafely(o.Enc, &buf, doc); err != nil {
		if saved == "" {
			if path, serr := report.SaveJSON(o.Results, doc); serr == nil {
				err = fmt.Errorf("%w; the measurements are saved in %s", err, path)
			}
		}
		errs = append(errs, err)
		o.out.Abort()
		return errors.Join(errs...)
	}
	if _, err := o.out.Write(buf.Bytes()); err != nil {
		o.out.Abort()
		return errors.Join(append(errs, err)...)
	}
	if err := o.out.Commit(); err != nil {
		return errors.Join(append(errs, err)...)
	}
	o.writeNotes(doc, log)
	return errors.Join(errs...)
}

// writeNotes writes on log, once the output is written, the caveats its
// format has no room for (report.Noter: -o perftest keeps perftest's
// bytes on standard output, its caveats go here).
func (o *Output) writeNotes(doc *report.Document, log io.Writer) {
	if o.noter == nil {
		return
	}
	for _, n := range o.noter.Notes(doc) {
		fmt.Fprintf(log, "rdma-bench: %s\n", n)
	}
}

// finishStream ends a streamed document: --save and --samples as Finish
// does, then the whole document as the stream's last record.
func (o *Output) finishStream(doc *report.Document, log io.Writer) error {
	var errs []error
	if len(doc.Results) > 0 {
		if o.Save {
			if path, err := report.SaveJSON(o.Results, doc); err != nil {
				errs = append(errs, err)
			} else {
				fmt.Fprintf(log, "saved %s\n", path)
			}
		}
		if o.Samples != "" {
			errs = append(errs, writeSamples(o.Samples, doc))
		}
		var buf bytes.Buffer
		if err := encodeSafely(o.Enc, &buf, doc); err != nil {
			errs = append(errs, err)
		} else {
			o.mu.Lock()
			if _, err := o.stream.Write(buf.Bytes()); err != nil && o.streamErr == nil {
				o.streamErr = err
			}
			o.mu.Unlock()
		}
	}
	return errors.Join(append(errs, o.streamErr, o.stream.Close())...)
}

// writeSamples writes the --samples file, whole or not at all.
func writeSamples(path string, doc *report.Document) error {
	a, err := outfile.Create(path)
	if err != nil {
		return fmt.Errorf("--samples %w", err)
	}
	if err := report.WriteSamples(a, doc); err != nil {
		a.Abort()
		return fmt.Errorf("--samples %s: %w", path, err)
	}
	return a.Commit()
}

// encodeSafely runs an encoder, turning a panic into an error.
func encodeSafely(enc report.Encoder, buf *bytes.Buffer, doc *report.Document) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("writing the output failed (a bug: %v)", r)
		}
	}()
	if err := enc.Encode(buf, doc); err != nil {
		return fmt.Errorf("writing the output: %w", err)
	}
	return nil
}
