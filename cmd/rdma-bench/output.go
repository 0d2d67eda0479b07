package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/pkg/report"
)

// version is set at build time: -ldflags "-X main.version=...".
var version = "dev"

// outputFlags choose how results are written.
type outputFlags struct {
	format  string
	file    string
	save    bool
	results string
	enc     report.Encoder
	out     io.WriteCloser
}

func addOutputFlags(fs *pflag.FlagSet, o *outputFlags) {
	fs.StringVarP(&o.format, "output", "o", report.DefaultEncoder, "output format: table, json, csv or hgrm")
	fs.StringVar(&o.file, "output-file", "", "write the output to this file instead of standard output")
	fs.BoolVar(&o.save, "save", false, "also save the JSON document under --results-dir")
	fs.StringVar(&o.results, "results-dir", "results", "where --save writes")
}

// open checks the format and opens the output before anything runs, so a
// bad name or an unwritable file fails early.
func (o *outputFlags) open() error {
	enc, err := report.NewEncoder(o.format)
	if err != nil {
		return usageError("%v", err)
	}
	o.enc = enc
	if o.file == "" {
		o.out = nopWriteCloser{os.Stdout}
		return nil
	}
	if o.out, err = report.OpenOutput(o.file); err != nil {
		return usageError("--output-file: %v", err)
	}
	return nil
}

// write encodes the document with enc, saves it when asked, and closes
// the output.
func (o *outputFlags) write(doc *report.Document, enc func(io.Writer, *report.Document) error) error {
	err := enc(o.out, doc)
	if cerr := o.out.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("closing %s: %w", o.file, cerr)
	}
	if err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	if o.save {
		path, err := report.SaveJSON(o.results, doc)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "saved %s\n", path)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// newDocument starts the report of one invocation.
func newDocument() *report.Document {
	host, _ := report.CollectHost()
	return &report.Document{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.Tool{Name: "rdma-bench", Version: version, Commit: commit()},
		Host:          host,
		StartedAt:     time.Now().UTC(),
		Args:          os.Args,
	}
}

// commit is the VCS revision the binary was built from, if recorded.
func commit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && rev != "" {
		rev += "-dirty"
	}
	return rev
}
