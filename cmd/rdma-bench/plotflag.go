//go:build cgo

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/bench"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

// plotFlag is --plot DIR of run and suite: once the run's document is
// written, the charts `rdma-bench plot` draws of it go into DIR.
type plotFlag struct {
	dir string
	doc *report.Document // the document written, caught by the output's encoder
}

func addPlotFlag(fs *pflag.FlagSet, p *plotFlag) {
	fs.StringVar(&p.dir, "plot", "", "also draw the measured document's charts (SVG and PNG, those of rdma-bench plot) into this directory")
}

// check refuses a directory the charts could not be written into, before
// anything runs, and has o's encoder hand over the document it writes.
// Call it after o.check.
func (p *plotFlag) check(o *bench.Output) error {
	if p.dir == "" {
		return nil
	}
	if err := probeDir(p.dir); err != nil {
		return usageError("--plot %s: %v: want a directory that can be created or written into", p.dir, unwrapPath(err))
	}
	o.Enc = catchEncoder{Encoder: o.Enc, doc: &p.doc}
	return nil
}

// after draws the charts of the document written, if one was, and joins
// a failure to runErr, the run's own outcome. Its failure is not bad
// input: the run happened and its document is written.
func (p *plotFlag) after(runErr error) error {
	if p.dir == "" || p.doc == nil {
		return runErr
	}
	written, err := p.draw()
	if err != nil {
		return errors.Join(runErr, fmt.Errorf("--plot %s: %s", p.dir, err.Error()))
	}
	fmt.Fprintf(os.Stderr, "wrote %d charts (SVG and PNG) into %s\n", len(written)/2, p.dir)
	return runErr
}

// draw reads the document back as `rdma-bench plot` reads a saved one
// and writes its charts: runs cut short are drawn too, as the document
// holds them.
func (p *plotFlag) draw() ([]string, error) {
	enc, err := report.NewEncoder("json")
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := enc.Encode(&buf, p.doc); err != nil {
		return nil, err
	}
	doc, err := results.Parse(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("reading the document back: %w", err)
	}
	doc.Path = "the measured document"
	docs := []*results.Document{doc}
	sides, err := results.Sides(docs, nil, results.Options{AllowPartial: true})
	if err != nil {
		return nil, err
	}
	c := chartFlags{allowPartial: true}
	charts, err := c.charts(docs, sides, nil)
	if err != nil {
		return nil, err
	}
	var all []results.NamedChart
	for _, k := range results.ChartKinds {
		all = append(all, charts[k]...)
	}
	return writeCharts(p.dir, all)
}

// catchEncoder is an output encoder that keeps the document it encodes.
type catchEncoder struct {
	report.Encoder
	doc **report.Document
}

// Encode implements report.Encoder.
func (c catchEncoder) Encode(w io.Writer, doc *report.Document) error {
	*c.doc = doc
	return c.Encoder.Encode(w, doc)
}

// probeDir checks that files can be made in dir, creating it for the
// check when missing and removing again what it created.
func probeDir(dir string) error {
	if fi, err := os.Stat(dir); err == nil {
		if !fi.IsDir() {
			return errors.New("not a directory")
		}
		return outfile.CheckDir(dir)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// The directories that do not exist yet, deepest first.
	var made []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		made = append(made, d)
	}
	defer func() {
		for _, d := range made {
			os.Remove(d)
		}
	}()
	return outfile.CheckDir(dir)
}
