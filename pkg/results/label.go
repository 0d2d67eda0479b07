package results

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// SelectLabel returns the documents labelled label, in their order. It is
// an error when none is: the message lists the labels there are, and says
// that documents without a label cannot be selected by one.
func SelectLabel(docs []*document.Document, label string) ([]*document.Document, error) {
	if label == "" {
		return nil, fmt.Errorf("empty label: want the --label a document was saved with")
	}
	var out []*document.Document
	unlabelled := 0
	for _, d := range docs {
		switch d.Label {
		case label:
			out = append(out, d)
		case "":
			unlabelled++
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	msg := fmt.Sprintf("no document labelled %q among the %d read", label, len(docs))
	if ls := Labels(docs); len(ls) > 0 {
		msg += fmt.Sprintf(": labels found: %s", briefList(ls))
	} else {
		msg += ": none has a label"
	}
	if unlabelled > 0 {
		msg += fmt.Sprintf("; %d without a label (saved without --label) cannot be selected by one", unlabelled)
	}
	return nil, fmt.Errorf("%s", msg)
}

// Labels returns the distinct labels of docs, documents without one left
// out, sorted by the earliest started_at of their documents (then by
// name).
func Labels(docs []*document.Document) []string {
	first := map[string]time.Time{}
	for _, d := range docs {
		if d.Label == "" {
			continue
		}
		if t, ok := first[d.Label]; !ok || d.StartedAt.Before(t) {
			first[d.Label] = d.StartedAt
		}
	}
	out := make([]string, 0, len(first))
	for l := range first {
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := first[a].Compare(first[b]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return out
}

// OrderLabels checks a user's order of labels against those found: every
// label found must be named once, and no other.
func OrderLabels(docs []*document.Document, order []string) ([]string, error) {
	found := Labels(docs)
	if len(order) == 0 {
		return found, nil
	}
	seen := map[string]bool{}
	isFound := map[string]bool{}
	for _, l := range found {
		isFound[l] = true
	}
	for _, l := range order {
		if seen[l] {
			return nil, fmt.Errorf("label order: %q named twice", l)
		}
		seen[l] = true
		if !isFound[l] {
			return nil, fmt.Errorf("label order: no document labelled %q: labels found: %s", l, briefList(found))
		}
	}
	for _, l := range found {
		if !seen[l] {
			return nil, fmt.Errorf("label order: label %q found but not named: name every label (%s)", l, briefList(found))
		}
	}
	return slices.Clone(order), nil
}
