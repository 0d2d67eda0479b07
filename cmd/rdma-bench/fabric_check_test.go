package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/fabric"
)

// fabricJSON is rank 0's JSON document as a reader decodes it.
type fabricJSON struct {
	fabric.Document
}

func readFabricJSON(t *testing.T, b []byte) *fabricJSON {
	t.Helper()
	var d fabricJSON
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("rank 0's document: %v\n%s", err, b)
	}
	return &d
}

// savedFabric lists the fabric documents --save wrote into dir.
func savedFabric(dir string) []string {
	saved, _ := filepath.Glob(filepath.Join(dir, "rdma-bench-*-fabric.json"))
	return saved
}

// readSavedFabric reads the one fabric document --save wrote into dir; more
// says what else to show when there is not exactly one.
func readSavedFabric(t *testing.T, dir, more string) *fabricJSON {
	t.Helper()
	saved := savedFabric(dir)
	if len(saved) != 1 {
		t.Fatalf("saved %v, want one document %s", saved, more)
	}
	b, err := os.ReadFile(saved[0])
	if err != nil {
		t.Fatal(err)
	}
	return readFabricJSON(t, b)
}

// wantSuspects recomputes, apart from pkg/fabric, which measured pairs
// are worse than their metric's median by more than the threshold in the
// sweep: "metric src->dst" for each.
func wantSuspects(d *fabricJSON, metrics []string) []string {
	var out []string
	for _, metric := range metrics {
		var vals []float64
		for _, p := range d.Pairs {
			if v, ok := p.Figures.Get(metric); ok && p.Status == fabric.StatusOK {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			continue
		}
		slices.Sort(vals)
		med := vals[len(vals)/2]
		if len(vals)%2 == 0 {
			med = (vals[len(vals)/2-1] + vals[len(vals)/2]) / 2
		}
		higherBetter := strings.HasSuffix(metric, "_gbps") || strings.HasSuffix(metric, "_mpps")
		for _, p := range d.Pairs {
			v, ok := p.Figures.Get(metric)
			if !ok || p.Status != fabric.StatusOK {
				continue
			}
			worse := (v - med) / med * 100
			if higherBetter {
				worse = -worse
			}
			if worse > d.ThresholdPct {
				out = append(out, metric+" "+strconv.Itoa(p.Src)+"->"+strconv.Itoa(p.Dst))
			}
		}
	}
	slices.Sort(out)
	return out
}

// gotSuspects lists the document's suspects as wantSuspects does.
func gotSuspects(d *fabricJSON) []string {
	var out []string
	for _, o := range d.Suspects {
		out = append(out, o.Metric+" "+strconv.Itoa(o.Src.Rank)+"->"+strconv.Itoa(o.Dst.Rank))
	}
	slices.Sort(out)
	return out
}

// checkFigures checks that every OK pair has a finite, positive figure
// for each metric.
func checkFigures(t *testing.T, d *fabricJSON, metrics []string) {
	t.Helper()
	for _, p := range d.Pairs {
		if p.Status != fabric.StatusOK {
			continue
		}
		for _, m := range metrics {
			if v, ok := p.Figures.Get(m); !ok || !(v > 0) || math.IsInf(v, 0) {
				t.Errorf("pair %d->%d: %s = %v (%v), want a positive figure", p.Src, p.Dst, m, v, ok)
			}
		}
	}
}

// matrixRows returns the rows of metric's matrix in a table output:
// "| 0 host | - | 1.234 | ..." split into cells.
func matrixRows(t *testing.T, out, metric string) [][]string {
	t.Helper()
	_, rest, ok := strings.Cut(out, metric+": rows measure (src), columns serve (dst)\n")
	if !ok {
		t.Fatalf("no matrix of %s in:\n%s", metric, out)
	}
	lines := strings.Split(rest, "\n")
	if len(lines) < 4 {
		t.Fatalf("matrix of %s cut short:\n%s", metric, rest)
	}
	var rows [][]string
	for _, line := range lines[3:] { // under the border, header, border
		if !strings.HasPrefix(line, "|") {
			break
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	return rows
}

// checkPairResults checks that every measured pair's result is a report
// document (run's schema) with one ok result per workload, in order.
func checkPairResults(t *testing.T, d *fabricJSON, workloads ...string) {
	t.Helper()
	for _, p := range d.Pairs {
		if p.Status != fabric.StatusOK {
			continue
		}
		var doc struct {
			SchemaVersion int `json:"schema_version"`
			Results       []struct {
				Workload, Status string
			} `json:"results"`
		}
		if err := json.Unmarshal(p.Result, &doc); err != nil {
			t.Fatalf("pair %d->%d result: %v", p.Src, p.Dst, err)
		}
		var got []string
		for _, r := range doc.Results {
			got = append(got, r.Workload+" "+r.Status)
		}
		var want []string
		for _, w := range workloads {
			want = append(want, w+" ok")
		}
		if doc.SchemaVersion != 2 || !slices.Equal(got, want) {
			t.Errorf("pair %d->%d: schema %d, results %q; want 2 and %q", p.Src, p.Dst, doc.SchemaVersion, got, want)
		}
	}
}

// checkRechecks checks that every suspect was re-measured within
// outlierPairs pairs, alternately with its reference (a pair of the same
// metric that is no suspect), and decided or undecided at the most pairs
// or at a failed pair; it returns the outliers and the failed
// re-measurements.
func checkRechecks(t *testing.T, d *fabricJSON, outlierPairs int) (outliers, failed int) {
	t.Helper()
	if len(d.Suspects) > 0 && (d.Recheck == nil || d.Recheck.MaxPairs != outlierPairs) {
		t.Fatalf("recheck settings %+v, want at most %d pairs", d.Recheck, outlierPairs)
	}
	suspect := map[string]bool{}
	for _, s := range d.Suspects {
		suspect[fmt.Sprintf("%s %d->%d", s.Metric, s.Src.Rank, s.Dst.Rank)] = true
	}
	for _, s := range d.Suspects {
		name := fmt.Sprintf("%s %d->%d", s.Metric, s.Src.Rank, s.Dst.Rank)
		r := s.Recheck
		if r == nil || suspect[fmt.Sprintf("%s %d->%d", s.Metric, s.Reference.Src.Rank, s.Reference.Dst.Rank)] {
			t.Errorf("%s: recheck %+v beside %d->%d", name, r, s.Reference.Src.Rank, s.Reference.Dst.Rank)
			continue
		}
		t.Logf("%s: %s after %d pairs: %+.1f%% [%+.1f%%, %+.1f%%] %s", name, s.Finding(), r.Pairs, r.EstimatePct, r.LoPct, r.HiPct, r.Error)
		// Undecided before the most pairs only when a pair failed or its
		// share of --outlier-time ran out (a slow machine: CI's of
		// 2026-11-29 stopped six suspects at 10 and 11 pairs of 12).
		if len(r.Suspect) != r.Pairs || len(r.Reference) != r.Pairs || r.Pairs > outlierPairs ||
			r.Decision == compare.Undecided && r.Failed == nil && r.Pairs != outlierPairs && !r.TimeUp {
			t.Errorf("%s: %s after %d pairs (%d, %d figures) of at most %d", name, s.Finding(), r.Pairs, len(r.Suspect), len(r.Reference), outlierPairs)
		}
		if r.TimeUp && (r.Pairs >= outlierPairs || r.ShareNS <= 0 || r.ElapsedNS <= 0) {
			t.Errorf("%s: time up after %d pairs of at most %d, %d ns of a %d ns share", name, r.Pairs, outlierPairs, r.ElapsedNS, r.ShareNS)
		}
		if r.Decision == compare.Fail {
			outliers++
		}
		if r.Failed != nil {
			failed++
		}
	}
	return outliers, failed
}
