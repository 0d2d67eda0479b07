package fabric

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// Beyond these many ranks, rank 0's table names the first members only
// and leaves the matrices to the JSON document and the heat maps.
const maxTableMembers = 64

// FindingsLimit is how many lines each list of the findings shows in
// rank 0's table and in report's view of a saved sweep.
const FindingsLimit = 20

// Output is what rank 0 writes, beside the heat maps: the document in a
// format, to a file or standard output, and saved as JSON.
type Output struct {
	// Format is "table" or "json".
	Format string
	// File is where the format goes (outfile's rules: "" or "-" is
	// standard output).
	File string
	// Save saves the JSON document under ResultsDir too.
	Save       bool
	ResultsDir string
	// Metrics are the metrics the table prints a matrix of.
	Metrics []string
	// Log takes "saved PATH".
	Log io.Writer
}

// Check makes sure rank 0 can write what it was asked to, before
// anything is measured; its errors name the flag.
func (o *Output) Check() error {
	if o.Save {
		if err := outfile.CheckDir(o.ResultsDir); err != nil {
			return fmt.Errorf("--results-dir: %w", err)
		}
	}
	if err := outfile.Check(o.File); err != nil {
		return fmt.Errorf("--output-file %w", err)
	}
	return nil
}

// Write writes doc: the JSON document first (Save) so that no output
// failure loses a measurement, then the format. Its errors are joined.
func (o *Output) Write(doc *Document) error {
	var errs []error
	if o.Save {
		path, err := Save(o.ResultsDir, doc)
		if err != nil {
			errs = append(errs, err)
		} else {
			fmt.Fprintf(o.Log, "saved %s\n", path)
		}
	}
	// Written as it is encoded: a file by outfile's rules (a regular one
	// replaced once complete, standard output written at the end).
	f, err := outfile.Create(o.File)
	if err == nil {
		if o.Format == "json" {
			err = WriteJSON(f, doc)
		} else {
			err = WriteTable(f, doc, o.Metrics)
		}
		if err == nil {
			err = f.Commit()
		} else {
			f.Abort()
		}
	}
	return errors.Join(append(errs, err)...)
}

// WriteJSON writes doc as indented JSON. At rank 0 the pairs are copied
// from the pair log one at a time, between the keys before and after
// them, so that the document is never whole in memory.
func WriteJSON(w io.Writer, doc *Document) error {
	if doc.log == nil {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode((*documentJSON)(doc)); err != nil {
			return fmt.Errorf("encode the fabric document: %w", err)
		}
		return nil
	}
	head := *doc
	head.log, head.Pairs = nil, []PairOutcome{}
	b, err := json.MarshalIndent((*documentJSON)(&head), "", "  ")
	if err != nil {
		return fmt.Errorf("encode the fabric document: %w", err)
	}
	const empty = "\n  \"pairs\": [],\n"
	at := bytes.Index(b, []byte(empty))
	if at < 0 {
		return errors.New("encode the fabric document: no pairs key")
	}
	ew := &display.ErrWriter{W: w}
	ew.Printf("%s\n  \"pairs\": [", b[:at])
	sep := "\n    "
	if err := doc.log.EachFull(func(p *PairOutcome) error {
		pb, err := json.MarshalIndent(p, "    ", "  ")
		if err != nil {
			return err
		}
		ew.Printf("%s%s", sep, pb)
		sep = ",\n    "
		return ew.Err
	}); err != nil {
		return fmt.Errorf("encode the fabric document: %w", err)
	}
	if doc.log.Len() > 0 {
		ew.Printf("\n  ")
	}
	ew.Printf("],\n%s\n", b[at+len(empty):])
	return ew.Done("encode the fabric document")
}

// Save writes the JSON document into dir as
// rdma-bench-YYYYMMDD-HHMMSS-fabric[-N].json, never replacing a file, and
// returns its path. It is written as it is encoded (WriteJSON), into a
// pending file renamed once complete.
func Save(dir string, doc *Document) (string, error) {
	f, err := outfile.CreateNew(dir, "rdma-bench-"+doc.StartedAt.UTC().Format("20060102-150405")+"-fabric", ".json")
	if err == nil {
		err = WriteJSON(f, doc)
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

// WriteTable writes what rank 0 prints: the run, its members, a matrix
// per metric, a halves or incast sweep's round totals (RoundTotalLines),
// and the findings.
func WriteTable(w io.Writer, doc *Document, metrics []string) error {
	ew := &display.ErrWriter{W: w}
	ew.Printf("rdma-bench fabric %s: %d ranks (%s, rendezvous via %s), %s, %s\n",
		doc.Tool.Version, doc.World.Size, doc.Launcher, doc.Rendezvous, doc.Schedule.Text(),
		doc.FinishedAt.Sub(doc.StartedAt).Round(100*time.Millisecond))
	if doc.Partial() {
		ew.Printf("PARTIAL: %s\n", PartialReason(doc))
	}
	for i, m := range doc.Members {
		if i == maxTableMembers {
			ew.Printf("  ... %d more ranks\n", len(doc.Members)-i)
			break
		}
		gid := ""
		if m.GID != "" {
			gid = " GID " + m.GID
		}
		dev := "-"
		if m.Device != "" {
			dev = fmt.Sprintf("%s port %d%s MTU %d", m.Device, m.Port, gid, m.MTUBytes)
			if m.DeviceWhy != "" {
				dev += " (" + m.DeviceWhy + ")"
			}
		}
		ew.Printf("  rank %d: %s, %s, listening on %s\n", m.Rank, m.Hostname, dev, m.Addr)
	}
	if doc.Probe {
		ew.Printf("\nprobe: each pair connected and made one round trip of %s; no matrix (one sample a pair is no figure to compare)\n",
			strings.Join(doc.Workloads, ", "))
		metrics = nil
	}
	for _, metric := range metrics {
		what, unit := DescribeMetric(metric)
		ew.Printf("\n%s [%s]\n", what, unit)
		if ew.Err != nil {
			break
		}
		if n := len(doc.Members); n > maxTableMembers {
			ew.Printf("%s: a %d x %d matrix: see the JSON document (-o json, --save) or --plot\n", metric, n, n)
			continue
		}
		ew.Err = WriteMatrix(w, doc.Matrix(metric))
	}
	ew.Printf("\n")
	if ew.Err != nil {
		return ew.Err
	}
	totals, err := RoundTotalLines(doc)
	if err != nil {
		return err
	}
	for _, line := range totals {
		ew.Printf("%s\n", line)
	}
	if len(totals) > 0 {
		ew.Printf("\n")
	}
	if ew.Err != nil {
		return ew.Err
	}
	if err := WriteFindings(w, doc, FindingsLimit); err != nil {
		return err
	}
	return doc.Err()
}

// PartialReason says why a partial document stopped.
func PartialReason(doc *Document) string {
	if doc.Reason != "" {
		return doc.Reason
	}
	return fmt.Sprintf("%d of %d scheduled pairs measured or failed", doc.PairCount(), doc.Schedule.Pairs)
}

// Summary is the line that goes with a non-zero ExitStatus: how many
// pairs failed, how many suspects are outliers, and how many pairs were
// not clean or thin.
func Summary(doc *Document) string {
	msg := fmt.Sprintf("%d of %d pairs failed, %d outliers of %d suspects (threshold %g%%)",
		doc.FailedCount(), doc.PairCount(), len(doc.Outliers()), len(doc.Suspects), doc.ThresholdPct)
	if doc.Probe {
		msg = fmt.Sprintf("%d of %d pairs failed the probe", doc.FailedCount(), doc.PairCount())
	}
	if n := len(doc.FailedRechecks()); n > 0 {
		msg += fmt.Sprintf(", %d re-measurements failed", n)
	}
	if counts, err := doc.caveatCounts(1); err == nil {
		if s := caveatSummary(counts); s != "" {
			msg += "; " + s
		}
	}
	if err := doc.Err(); err != nil {
		msg += "; " + err.Error()
	}
	return msg
}
