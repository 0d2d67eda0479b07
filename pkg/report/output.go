package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// maxNameSuffix bounds the search for a free file name in SaveJSON.
const maxNameSuffix = 10000

// SaveJSON writes doc as JSON into dir (created if missing) under the name
// rdma-bench-YYYYMMDD-HHMMSS-<name>[-<label>].json, where the time is
// doc.StartedAt (now if zero), the name is the workload shared by every
// result, else "suite", and the label is doc.Label. An existing file is never replaced: "-1", "-2", ... is appended
// to the name instead. The document is written to a temporary file, synced
// and then linked or renamed into place, so a reader never sees a partial
// file and no temporary file is left behind.
func SaveJSON(dir string, doc *Document) (path string, err error) {
	if doc == nil {
		return "", errors.New("save json: nil document")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("save json: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".rdma-bench-*.json.tmp")
	if err != nil {
		return "", fmt.Errorf("save json: %w", err)
	}
	defer func() {
		_ = tmp.Close()           // already closed on success; harmless
		_ = os.Remove(tmp.Name()) // the file stays under its final name
	}()
	if err := (jsonEncoder{}).Encode(tmp, doc); err != nil {
		return "", fmt.Errorf("save json: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return "", fmt.Errorf("save json: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return "", fmt.Errorf("save json: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("save json: %w", err)
	}
	path, err = placeNoClobber(tmp.Name(), dir, jsonBaseName(doc))
	if err != nil {
		return "", fmt.Errorf("save json: %w", err)
	}
	syncDir(dir)
	return path, nil
}

// placeNoClobber gives the file tmp the name base.json in dir, or
// base-N.json for the smallest free N, without replacing any file.
func placeNoClobber(tmp, dir, base string) (string, error) {
	for i := 0; i < maxNameSuffix; i++ {
		name := base + ".json"
		if i > 0 {
			name = fmt.Sprintf("%s-%d.json", base, i)
		}
		path := filepath.Join(dir, name)
		// A hard link fails if the name exists: an atomic no-clobber move.
		err := os.Link(tmp, path)
		if err == nil {
			return path, nil
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		// No hard links here (some file systems): check, then rename.
		if _, statErr := os.Lstat(path); statErr == nil {
			continue
		} else if !errors.Is(statErr, fs.ErrNotExist) {
			return "", statErr
		}
		if err := os.Rename(tmp, path); err != nil {
			return "", err
		}
		return path, nil
	}
	return "", fmt.Errorf("no free file name for %s in %s", base, dir)
}

// syncDir makes a new directory entry durable; best effort.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// jsonBaseName is the file name SaveJSON uses, without extension.
func jsonBaseName(doc *Document) string {
	t := doc.StartedAt
	if t.IsZero() {
		t = time.Now()
	}
	label := ""
	for _, r := range validResults(doc) {
		switch {
		case label == "":
			label = r.Workload
		case label != r.Workload:
			label = "suite"
		}
	}
	label = sanitizeName(label)
	if label == "" {
		label = "suite"
	}
	if l := sanitizeName(doc.Label); l != "" {
		label += "-" + l
	}
	return "rdma-bench-" + t.Format("20060102-150405") + "-" + label
}

// sanitizeName keeps letters, digits, '_', '-' and '.', replacing the rest.
func sanitizeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
			return r
		}
		return '_'
	}, strings.Trim(s, "."))
}

// AtomicFile is an output file written under a temporary name in its
// directory and renamed into place by Commit, so that a failed or
// interrupted run never truncates or half-writes an existing file. The
// temporary file is created at once, so an unwritable path is reported
// before a long run rather than after.
type AtomicFile struct {
	f    *os.File
	path string
}

// CreateAtomic starts writing path.
func CreateAtomic(path string) (*AtomicFile, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("cannot write output file %s: not a regular file", path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot write output file %s: %w", path, err)
	}
	return &AtomicFile{f: f, path: path}, nil
}

// Write writes to the temporary file.
func (a *AtomicFile) Write(p []byte) (int, error) { return a.f.Write(p) }

// Commit makes what was written the file's content.
func (a *AtomicFile) Commit() error {
	err := a.f.Chmod(0o644)
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.f.Name(), a.path)
	}
	if err != nil {
		_ = os.Remove(a.f.Name())
		return fmt.Errorf("writing %s: %w", a.path, err)
	}
	syncDir(filepath.Dir(a.path))
	return nil
}

// Abort drops what was written; the file keeps its old content.
func (a *AtomicFile) Abort() {
	_ = a.f.Close()
	_ = os.Remove(a.f.Name())
}

// CheckDir makes sure dir exists (creating it) and takes new files, so that
// a run that will save there learns at once if it cannot.
func CheckDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".rdma-bench-check-*.tmp")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
