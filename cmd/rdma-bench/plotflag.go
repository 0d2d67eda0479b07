//go:build cgo

package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/analysis"
	"github.com/rdma-bench/rdma-bench/pkg/bench"
)

// plotFlag is --plot DIR of run and suite: once the run's document is
// written, the charts `rdma-bench plot` draws of it go into DIR.
type plotFlag struct{ analysis.DocumentPlot }

func addPlotFlag(fs *pflag.FlagSet, p *plotFlag) {
	fs.StringVar(&p.Dir, "plot", "", "also draw the measured document's charts (SVG and PNG, those of rdma-bench plot) into this directory")
}

// check refuses a directory the charts could not be written into, before
// anything runs, and has o's encoder hand over the document it writes.
// Call it after o.check.
func (p *plotFlag) check(o *bench.Output) error {
	if p.Dir == "" {
		return nil
	}
	if err := outfile.ProbeDir(p.Dir); err != nil {
		return usageError("--plot %s: %v: want a directory that can be created or written into", p.Dir, unwrapPath(err))
	}
	o.Enc = p.Catch(o.Enc)
	return nil
}

// after draws the charts of the document written, if one was, and joins
// a failure to runErr, the run's own outcome. Its failure is not bad
// input: the run happened and its document is written.
func (p *plotFlag) after(runErr error, stderr io.Writer) error {
	if p.Dir == "" || !p.Caught() {
		return runErr
	}
	written, err := p.Draw()
	if err != nil {
		return errors.Join(runErr, fmt.Errorf("--plot %s: %s", p.Dir, err.Error()))
	}
	fmt.Fprintf(stderr, "wrote %d charts (SVG and PNG) into %s\n", len(written)/2, p.Dir)
	return runErr
}
