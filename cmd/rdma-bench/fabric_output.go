//go:build cgo

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
)

// Beyond these many ranks, rank 0's table names the first members only
// and leaves the matrices to the JSON document and --plot.
const (
	maxTableMembers = 64
	findingsLimit   = 20
)

// checkOutputs makes sure rank 0 can write what it was asked to, before
// anything is measured.
func (f *fabricFlags) checkOutputs() error {
	if f.save {
		if err := outfile.CheckDir(f.results); err != nil {
			return usageError("--results-dir: %v", err)
		}
	}
	if err := outfile.Check(f.file); err != nil {
		return usageError("--output-file %v", err)
	}
	if f.plotDir != "" {
		if fi, err := os.Stat(f.plotDir); err == nil && !fi.IsDir() {
			return usageError("--plot %s: not a directory", f.plotDir)
		}
	}
	return nil
}

// report writes rank 0's results, the JSON document first (--save) so that
// no output failure loses a measurement, and returns the run's status:
// sweepErr, an output error, or exit status 1 for failed or outlying pairs.
// Every view renders from the document, which holds the suspects and
// their re-measurements.
func (r *fabricRank) report(doc *fabric.Document, sweepErr error) error {
	f := r.f
	var errs []error
	if f.save {
		path, err := saveFabric(f.results, doc)
		if err != nil {
			errs = append(errs, err)
		} else {
			fmt.Fprintf(os.Stderr, "saved %s\n", path)
		}
	}
	var buf bytes.Buffer
	var err error
	if f.format == "json" {
		err = writeFabricJSON(&buf, doc)
	} else {
		err = writeFabricTable(&buf, doc, f.matrixMetrics())
	}
	if err == nil {
		err = outfile.WriteFile(f.file, buf.Bytes())
	}
	errs = append(errs, err)
	if f.plotDir != "" {
		errs = append(errs, plotFabric(f.plotDir, doc))
	}
	if err := errors.Join(append([]error{sweepErr}, errs...)...); err != nil {
		return err
	}
	if fabric.ExitStatus(doc) != 0 {
		msg := fmt.Sprintf("%d of %d pairs failed, %d outliers of %d suspects (threshold %g%%)",
			len(doc.Failed()), len(doc.Pairs), len(doc.Outliers()), len(doc.Suspects), doc.ThresholdPct)
		if n := len(doc.FailedRechecks()); n > 0 {
			msg += fmt.Sprintf(", %d re-measurements failed", n)
		}
		return &exitStatus{code: 1, msg: msg}
	}
	return nil
}

func writeFabricJSON(w io.Writer, doc *fabric.Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encode the fabric document: %w", err)
	}
	return nil
}

// saveFabric writes the JSON document into dir as
// rdma-bench-YYYYMMDD-HHMMSS-fabric[-N].json, never replacing a file.
func saveFabric(dir string, doc *fabric.Document) (string, error) {
	var buf bytes.Buffer
	if err := writeFabricJSON(&buf, doc); err != nil {
		return "", err
	}
	f, err := outfile.CreateNew(dir, "rdma-bench-"+doc.StartedAt.UTC().Format("20060102-150405")+"-fabric", ".json")
	if err == nil {
		_, err = f.Write(buf.Bytes())
	}
	path := ""
	if err == nil {
		path, err = f.Commit()
	} else if f != nil {
		f.Abort()
	}
	if err != nil {
		return "", fmt.Errorf("save the fabric document: %w", err)
	}
	return path, nil
}

// writeFabricTable writes what rank 0 prints: the run, its members, a
// matrix per workload, and the findings.
func writeFabricTable(w io.Writer, doc *fabric.Document, metrics []string) error {
	ew := &fabricWriter{w: w}
	ew.printf("rdma-bench fabric %s: %d ranks (%s, rendezvous via %s), pattern %s: %d pairs in %d rounds, %s\n",
		doc.Tool.Version, doc.World.Size, doc.Launcher, doc.Rendezvous, doc.Schedule.Pattern, doc.Schedule.Pairs, doc.Schedule.Rounds,
		doc.FinishedAt.Sub(doc.StartedAt).Round(100*time.Millisecond))
	if doc.Partial() {
		ew.printf("PARTIAL: %s\n", partialReason(doc))
	}
	for i, m := range doc.Members {
		if i == maxTableMembers {
			ew.printf("  ... %d more ranks\n", len(doc.Members)-i)
			break
		}
		gid := ""
		if m.GID != "" {
			gid = " GID " + m.GID
		}
		dev := "-"
		if m.Device != "" {
			dev = fmt.Sprintf("%s port %d%s MTU %d", m.Device, m.Port, gid, m.MTUBytes)
		}
		ew.printf("  rank %d: %s, %s, listening on %s\n", m.Rank, m.Hostname, dev, m.Addr)
	}
	for _, metric := range metrics {
		what, unit := describeMetric(metric)
		ew.printf("\n%s [%s]\n", what, unit)
		if ew.err != nil {
			break
		}
		if n := len(doc.Members); n > maxTableMembers {
			ew.printf("%s: a %d x %d matrix: see the JSON document (-o json, --save) or --plot\n", metric, n, n)
			continue
		}
		ew.err = fabric.WriteMatrix(w, doc.Matrix(metric))
	}
	ew.printf("\n")
	if ew.err != nil {
		return ew.err
	}
	return fabric.WriteFindings(w, doc, findingsLimit)
}

// partialReason says why a partial document stopped.
func partialReason(doc *fabric.Document) string {
	if doc.Reason != "" {
		return doc.Reason
	}
	return fmt.Sprintf("%d of %d scheduled pairs measured or failed", len(doc.Pairs), doc.Schedule.Pairs)
}

// fabricWriter keeps the first write error.
type fabricWriter struct {
	w   io.Writer
	err error
}

func (e *fabricWriter) printf(format string, a ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, a...)
	}
}
