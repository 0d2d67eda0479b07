package results

import (
	"slices"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/document"
)

// DefaultSessionGap is how close in time two documents of one side must
// be, the second starting after the first's last run, to be one session.
const DefaultSessionGap = time.Minute

// Sessions number the sessions of one side's documents: the unit that
// drifts together. A session is one document (a --repeat block's runs,
// taken together), and the documents that follow it on the same host
// within gap of its last run's start, as a loop of single runs writes
// them. Sessions are numbered in order of time.
type Sessions map[*document.Document]int

// SessionsOf groups docs into sessions, gap apart at least.
func SessionsOf(docs []*document.Document, gap time.Duration) Sessions {
	sorted := slices.Clone(docs)
	slices.SortStableFunc(sorted, func(a, b *document.Document) int { return a.StartedAt.Compare(b.StartedAt) })
	s := Sessions{}
	var prev *document.Document
	var prevEnd time.Time
	n := -1
	for _, d := range sorted {
		if prev == nil || d.Host.Hostname != prev.Host.Hostname || d.StartedAt.Sub(prevEnd) > gap {
			n++
		}
		s[d] = n
		prev, prevEnd = d, lastStart(d)
	}
	return s
}

// Count is the number of sessions.
func (s Sessions) Count() int {
	n := 0
	for _, v := range s {
		n = max(n, v+1)
	}
	return n
}

// lastStart is when the document's last run started: its own start for a
// document without run times.
func lastStart(d *document.Document) time.Time {
	t := d.StartedAt
	for _, r := range d.Results {
		for _, run := range r.Runs {
			if run.StartedAt.After(t) {
				t = run.StartedAt
			}
		}
	}
	return t
}

// of returns the session of each sample, or nil without sessions.
func (s Sessions) of(samples []Sample) []int {
	if s == nil {
		return nil
	}
	ids := make([]int, len(samples))
	for i, x := range samples {
		ids[i] = s[x.Doc]
	}
	return ids
}
