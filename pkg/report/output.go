package report

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
)

// SaveJSON writes doc as JSON into dir (created if missing) under the name
// rdma-bench-YYYYMMDD-HHMMSS-<name>[-<label>].json, where the time is
// doc.StartedAt (now if zero), the name is the workload shared by every
// result, else "suite", and the label is doc.Label. An existing file is
// never replaced: "-1", "-2", ... is appended to the name instead. A
// reader never sees a partial file (see package outfile).
func SaveJSON(dir string, doc *Document) (path string, err error) {
	if doc == nil {
		return "", errors.New("save json: nil document")
	}
	f, err := outfile.CreateNew(dir, jsonBaseName(doc), ".json")
	if err != nil {
		return "", fmt.Errorf("save json: %w", err)
	}
	if err := (jsonEncoder{}).Encode(f, doc); err != nil {
		f.Abort()
		return "", fmt.Errorf("save json: %w", err)
	}
	if path, err = f.Commit(); err != nil {
		return "", fmt.Errorf("save json: %w", err)
	}
	return path, nil
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
