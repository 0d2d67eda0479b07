//go:build cgo

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/perftestflags"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/workloads"
)

// outputFlags choose how results are written.
type outputFlags struct {
	format  string
	file    string
	save    bool
	results string
	samples string // --samples: every latency sample, as CSV
	enc     report.Encoder
	out     *outfile.File // the --output-file, once open
}

func addOutputFlags(fs *pflag.FlagSet, o *outputFlags, defaultFormat string) {
	fs.StringVarP(&o.format, "output", "o", defaultFormat, "output format: "+formatList())
	fs.StringVar(&o.file, "output-file", "", "write the output to this file instead of standard output: "+outfile.Rules)
	fs.BoolVar(&o.save, "save", false, "also save the JSON document under --results-dir")
	fs.StringVar(&o.results, "results-dir", "results", "where --save writes")
	fs.StringVar(&o.samples, "samples", "", "also write every latency sample (ns) to this CSV file, to check the percentiles against (with -D, kept in memory beside the histogram: 8 bytes a sample)")
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

// check checks the format, and that --save can write, before anything
// else.
func (o *outputFlags) check() error {
	enc, err := report.NewEncoder(o.format)
	if err != nil {
		if h := perftestflags.Collision("output", o.format); h != "" {
			return usageError("%v; %s", err, h)
		}
		return usageError("%v", err)
	}
	o.enc = enc
	if o.save {
		if err := outfile.CheckDir(o.results); err != nil {
			return usageError("--results-dir: %v", err)
		}
	}
	if o.samples == "-" {
		return usageError("--samples -: give a file; standard output has the report")
	}
	for _, f := range []struct{ flag, path string }{{"output-file", o.file}, {"samples", o.samples}} {
		if f.path != "" {
			// Created for real once the run is done (finish).
			if err := outfile.Check(f.path); err != nil {
				return usageError("--%s %v", f.flag, err)
			}
		}
	}
	return nil
}

// checkWorkload refuses, before anything runs, a format that would write
// nothing of w: hgrm holds latency histograms only.
func (o *outputFlags) checkWorkload(w workloads.Workload) error {
	if o.format != "hgrm" || w.Latency() {
		return nil
	}
	var others []string
	for _, n := range report.Encoders() {
		if n != "hgrm" {
			others = append(others, n)
		}
	}
	return usageError("-o hgrm writes latency histograms and %s measures bandwidth: choose a latency workload, or -o %s", w.Name, strings.Join(others, ", "))
}

// open starts the output file before anything runs, so that an
// unwritable file fails early.
func (o *outputFlags) open() error {
	var err error
	if o.out, err = outfile.Create(o.file); err != nil {
		return usageError("--output-file %v", err)
	}
	return nil
}

// finish writes what was measured: the JSON document first (--save), so
// that no failure of an output format can lose the measurements, then the
// chosen format. A format that fails, even by a bug that panics, leaves the
// document saved: under --results-dir when --save was not given.
func (o *outputFlags) finish(doc *report.Document) error {
	if o.out == nil {
		if err := o.open(); err != nil {
			return err
		}
	}
	if len(doc.Results) == 0 {
		o.out.Abort()
		return nil
	}
	saved := ""
	var errs []error
	if o.save {
		path, err := report.SaveJSON(o.results, doc)
		if err != nil {
			errs = append(errs, err)
		} else {
			saved = path
			fmt.Fprintf(os.Stderr, "saved %s\n", path)
		}
	}
	if o.samples != "" {
		if err := writeSamples(o.samples, doc); err != nil {
			errs = append(errs, err)
		}
	}
	var buf bytes.Buffer
	if err := encodeSafely(o.enc, &buf, doc); err != nil {
		if saved == "" {
			if path, serr := report.SaveJSON(o.results, doc); serr == nil {
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
	return errors.Join(append(errs, o.out.Commit())...)
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

// newDocument starts the report of one invocation.
func newDocument() *report.Document {
	v := buildVersion()
	return &report.Document{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.Tool{Name: "rdma-bench", Version: strings.TrimSpace(v.version + " " + v.note), Commit: v.commit},
		Host:          workloads.ThisHost(),
		StartedAt:     time.Now().UTC(),
		Args:          os.Args,
	}
}
