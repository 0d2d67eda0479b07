package document

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rdma-bench/rdma-bench/internal/infile"
	"github.com/rdma-bench/rdma-bench/internal/safetext"
	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// Each reads the rdma-bench documents of paths one at a time and hands
// each to fn before reading the next: a reader that keeps only what it
// analyses holds one document in memory at a time. Each path is a file
// (read whatever its name; a FIFO or /dev/stdin named so is read as a
// stream), a directory (every *.json in it, not in subdirectories,
// leaving out dot-files and *.tmp, the temporary files of an interrupted
// save) or a glob pattern such as "results/*-base.json". What a directory
// or a pattern finds must be a regular file. No file is read past
// infile.MaxBytes. A file named twice is read once. The documents come in
// the order found; an error names the file and what was wrong in it. A
// document of another kind (a fabric or gate document) that a directory
// or a pattern finds is left out, and note, if not nil, told of it; one
// the user named is an error. Each stops at the first error, fn's
// included, and when ctx ends (a wait for a stream included), with ctx's
// cause.
func Each(ctx context.Context, note func(string), fn func(*Document) error, paths ...string) error {
	if len(paths) == 0 {
		return errors.New("no documents named: want files, directories or glob patterns")
	}
	var files []found
	seen := map[string]bool{}
	for _, p := range paths {
		found, err := expand(p)
		if err != nil {
			return err
		}
		for _, f := range found {
			abs, err := filepath.Abs(f.path)
			if err != nil {
				abs = f.path
			}
			if !seen[abs] {
				seen[abs] = true
				files = append(files, f)
			}
		}
	}
	n := 0
	for _, f := range files {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		read := infile.ReadRegular
		if f.named {
			read = func(p string) ([]byte, error) { return infile.Read(ctx, p) }
		}
		d, err := readDoc(f.path, read)
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		var other *OtherKindError
		if !f.named && errors.As(err, &other) {
			if note != nil {
				note(fmt.Sprintf("%s: left out: %s", safetext.Escape(f.path), other.Error()))
			}
			continue
		}
		if err != nil {
			return err
		}
		n++
		if err := fn(d); err != nil {
			return err
		}
	}
	if n == 0 {
		return fmt.Errorf("%s: no run or suite document among the %d found", strings.Join(paths, " "), len(files))
	}
	return nil
}

// OtherKindError is a document of rdma-bench that is not a run's: a
// fabric sweep's or a gate's.
type OtherKindError struct{ Kind string }

func (e *OtherKindError) Error() string {
	msg := fmt.Sprintf("a %s document: compare, plot and report read the documents of run and suite (rdma-bench %s has its own outputs)", e.Kind, e.Kind)
	if e.Kind == KindFabric || e.Kind == KindGate {
		msg += "; plot and report view a " + e.Kind + " document named alone"
	}
	return msg
}

// found is a file to read; named if the user named it rather than a
// directory or pattern holding it.
type found struct {
	path  string
	named bool
}

// expand turns one path argument into the files it names.
func expand(p string) ([]found, error) {
	if p == "" {
		return nil, errors.New("empty path: want a file, a directory or a glob pattern")
	}
	fi, err := os.Stat(p)
	switch {
	case err == nil && fi.IsDir():
		return listDir(p)
	case err == nil:
		return []found{{p, true}}, nil
	case !strings.ContainsAny(p, "*?["):
		return nil, fmt.Errorf("%s: %w", p, unwrapPathError(err))
	}
	matches, gerr := filepath.Glob(p)
	if gerr != nil {
		return nil, fmt.Errorf("pattern %q: %v: want a glob such as results/*.json", p, gerr)
	}
	var out []found
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && !fi.IsDir() && !skipped(filepath.Base(m)) {
			out = append(out, found{path: m})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("pattern %q matches no file", p)
	}
	return out, nil
}

// listDir lists the documents of a directory, sorted by name.
// Subdirectories are not entered, so no link can make it loop.
func listDir(dir string) ([]found, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, unwrapPathError(err))
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || skipped(n) || !strings.HasSuffix(n, ".json") {
			continue
		}
		out = append(out, filepath.Join(dir, n))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("directory %s holds no *.json document", dir)
	}
	slices.Sort(out)
	files := make([]found, len(out))
	for i, p := range out {
		files[i] = found{path: p}
	}
	return files, nil
}

// skipped says whether a directory entry or glob match is left out: a
// dot-file or a temporary file of an interrupted save.
func skipped(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".tmp")
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// readDoc reads one document with read. Its Path, and every message,
// names the file escaped: a name found in a directory is outside text too.
func readDoc(path string, read func(string) ([]byte, error)) (*Document, error) {
	name := safetext.Escape(path)
	b, err := read(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	d, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	d.Path = name
	return d, nil
}

// Parse decodes and checks one document (see [Each]); its Path is empty.
func Parse(b []byte) (*Document, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New("empty: want an rdma-bench JSON document")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("not an rdma-bench document: the JSON is %s, want an object with tool.name %q", article(te.Value), ToolName)
		}
		return nil, notJSON(b, err)
	}
	if err := checkHeader(top); err != nil {
		return nil, err
	}
	var d Document
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, typeError(err)
	}
	// Every view prints the document's text (labels, hosts, reasons):
	// escape sequences in it would reach the terminal.
	safetext.Strings(&d)
	if len(d.Results) == 0 {
		return nil, errors.New("no results: the document holds no measured point (results is empty)")
	}
	for i, r := range d.Results {
		if r == nil {
			return nil, fmt.Errorf("results[%d] is null: want a result object", i)
		}
		r.Index = i
		if err := checkResult(r); err != nil {
			return nil, err
		}
		normalizeRuns(r)
		if err := checkRuns(fmt.Sprintf("results[%d] (%s %s)", i, r.Workload, display.Size(r.SizeBytes)), r, d.Repeat); err != nil {
			return nil, err
		}
	}
	for i, c := range d.LoadCurves {
		if c == nil {
			return nil, fmt.Errorf("load_curves[%d] is null: want a curve object", i)
		}
		if err := checkLoadCurve(c); err != nil {
			return nil, fmt.Errorf("load_curves[%d] (%s %s): %w", i, c.Workload, display.Size(c.SizeBytes), err)
		}
	}
	for i, c := range d.LoadedCurves {
		if c == nil {
			return nil, fmt.Errorf("loaded_curves[%d] is null: want a curve object", i)
		}
		if err := checkLoadedCurve(c); err != nil {
			return nil, fmt.Errorf("loaded_curves[%d] (%s %s): %w", i, c.Workload, display.Size(c.SizeBytes), err)
		}
	}
	return &d, nil
}

// checkKind refuses a document of rdma-bench that is not a run's: one
// whose kind is not "run" (documents from before the kind key are runs),
// or a fabric document from before it had a kind (its tool is a string).
func checkKind(top map[string]json.RawMessage) error {
	var tool struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(top["tool"], &tool) != nil || tool.Name != ToolName {
		return checkOldFabric(top) // not rdma-bench's: checkHeader says so
	}
	if raw, ok := top["kind"]; ok {
		var k string
		if err := json.Unmarshal(raw, &k); err != nil {
			return fmt.Errorf("kind %s: want a string such as %q", safetext.Escape(string(raw)), KindRun)
		}
		if k != KindRun {
			return &OtherKindError{Kind: safetext.Escape(k)}
		}
		return nil
	}
	return nil
}

// checkOldFabric refuses a fabric document from before it had a kind: its
// tool is the string "rdma-bench fabric".
func checkOldFabric(top map[string]json.RawMessage) error {
	var tool string
	if json.Unmarshal(top["tool"], &tool) == nil && strings.HasPrefix(tool, ToolName) {
		if _, ok := top["pairs"]; ok {
			return &OtherKindError{Kind: KindFabric}
		}
	}
	return nil
}

// checkHeader refuses what is not an rdma-bench document of the schema
// this package reads, before the rest is decoded.
func checkHeader(top map[string]json.RawMessage) error {
	if err := checkKind(top); err != nil {
		return err
	}
	var tool struct {
		Name any `json:"name"`
	}
	raw, ok := top["tool"]
	if !ok || json.Unmarshal(raw, &tool) != nil {
		return fmt.Errorf("not an rdma-bench document: no tool.name, want %q", ToolName)
	}
	if name, _ := tool.Name.(string); name != ToolName {
		return fmt.Errorf("not an rdma-bench document: tool.name is %s, want %q", jsonText(tool.Name), ToolName)
	}
	raw, ok = top["schema_version"]
	if !ok {
		return fmt.Errorf("schema_version missing: want %d", SchemaVersion)
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil || v != float64(int(v)) {
		return fmt.Errorf("schema_version %s: want the whole number %d", raw, SchemaVersion)
	}
	switch {
	case int(v) > SchemaVersion:
		return fmt.Errorf("schema_version %d is newer than this rdma-bench reads (%d): read it with the rdma-bench that wrote it, or a newer one", int(v), SchemaVersion)
	case int(v) < SchemaVersion:
		return fmt.Errorf("schema_version %d is older than this rdma-bench reads (%d): its CPU costs and statuses meant other things; measure again", int(v), SchemaVersion)
	}
	return nil
}
