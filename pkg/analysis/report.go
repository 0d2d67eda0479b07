package analysis

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

// ReportOptions are report's settings.
type ReportOptions struct {
	Title  string
	Charts ChartOptions
	// Bases name the documents to compare the others against; none: no
	// comparison section.
	Bases  []string
	FailOn string   // with Bases: the gate's thresholds
	Ignore []string // with Bases: parameters a match may differ in
	// SessionNoisePct is, with Bases, compare's --session-noise (nil: not
	// given).
	SessionNoisePct *float64
}

// BuildReport composes the HTML report of the documents that paths name:
// latency, load, bandwidth, spectra and trend sections, then the
// comparison against the bases. Notes on documents left out go to notes.
// It stops when ctx ends, with ctx's cause.
func BuildReport(ctx context.Context, o ReportOptions, paths []string, notes io.Writer) (plot.Report, error) {
	docs, sides, err := o.Charts.SidesOf(ctx, paths, notes)
	if err != nil {
		return plot.Report{}, err
	}
	drawn, drawnSides := docs, sides
	var baseDocs []*document.Document
	if len(o.Bases) > 0 {
		// --labels orders the documents reported on; the base's own
		// labels go by their started_at.
		bc := o.Charts
		bc.Labels = ""
		var baseSides []*results.Group
		baseDocs, baseSides, err = bc.sidesOf(ctx, "--base", o.Bases, notes)
		if err != nil {
			return plot.Report{}, err
		}
		drawn, drawnSides = slices.Concat(baseDocs, docs), bothSides(baseSides, sides)
	}
	charts, err := o.Charts.Charts(ctx, drawn, drawnSides, nil)
	if err != nil {
		return plot.Report{}, err
	}
	r := plot.Report{Title: o.Title, Meta: results.Meta(drawn)}
	r.Sections = append(r.Sections, figureSections(drawnSides, charts)...)
	if l := results.LeftOut(drawnSides); len(l) > 0 && len(r.Sections) > 0 {
		r.Sections[0].Notes = append(r.Sections[0].Notes, l...)
	}
	if len(o.Bases) > 0 {
		co := CompareOptions{FailOn: o.FailOn, Ignore: o.Ignore, AllowPartial: o.Charts.AllowPartial, CleanOnly: o.Charts.CleanOnly,
			SessionNoisePct: o.SessionNoisePct}
		sec, err := comparisonSection(ctx, co, o.Bases, paths, baseDocs, docs)
		if err != nil {
			return plot.Report{}, err
		}
		r.Sections = append(r.Sections, sec)
	}
	return r, nil
}

// bothSides are the base's groups then the new side's, each named apart
// for the charts and tables that draw both: a group without a label is
// "base" or "new", and a label both sides have is prefixed with its
// side's name. A name so made that is already another group's gets a
// number, "base (2)", so that no two groups share one.
func bothSides(base, new []*results.Group) []*results.Group {
	labels := map[string]int{}
	for _, s := range slices.Concat(base, new) {
		labels[s.Label]++
	}
	// The labels kept as they are: a name made up for another group
	// must not be one of them.
	used := map[string]bool{}
	for l, n := range labels {
		if l != "" && n == 1 {
			used[l] = true
		}
	}
	name := func(side string, groups []*results.Group) []*results.Group {
		out := make([]*results.Group, len(groups))
		for i, s := range groups {
			c := *s
			want := ""
			switch {
			case c.Label == "":
				want = side
			case labels[c.Label] > 1:
				want = side + " " + c.Label
			}
			if want != "" {
				c.Label = want
				for n := 2; used[c.Label]; n++ {
					c.Label = fmt.Sprintf("%s (%d)", want, n)
				}
				used[c.Label] = true
			}
			out[i] = &c
		}
		return out
	}
	return slices.Concat(name("base", base), name("new", new))
}

// sideCaption names a side's tables: "label fw-A", or "documents
// without a label".
func sideCaption(s *results.Group) string {
	if s.Label == "" {
		return "documents without a label"
	}
	return "label " + s.Label
}

// figureSections are the report's latency, load, bandwidth, spectra and
// trend sections: each side's table and the charts.
func figureSections(sides []*results.Group, charts map[string][]results.NamedChart) []plot.Section {
	lat := plot.Section{Title: "Latency", Charts: chartsOf(charts, "latency")}
	bw := plot.Section{Title: "Bandwidth and message rate", Charts: chartsOf(charts, "bandwidth", "msgrate", "cpu")}
	for _, s := range sides {
		name := sideCaption(s)
		var files []string
		for _, d := range s.Docs {
			files = append(files, d.Path)
		}
		note := fmt.Sprintf("%s: %s", name, strings.Join(files, ", "))
		if t := results.LatencyTable(s); len(t.Rows) > 0 {
			lat.Notes = append(lat.Notes, note)
			t.Caption = name
			lat.Tables = append(lat.Tables, t)
		}
		if t := results.BandwidthTable(s); len(t.Rows) > 0 {
			bw.Notes = append(bw.Notes, note)
			t.Caption = name
			bw.Tables = append(bw.Tables, t)
		}
	}
	load := plot.Section{Title: "Latency against offered load", Charts: chartsOf(charts, "load")}
	if len(load.Charts) > 0 {
		load.Notes = append(load.Notes, fmt.Sprintf("open-loop runs at a fixed offered rate (--rate): latency from each operation's due time; "+
			"the knee is the first rate the run fell behind (achieved under %.0f%% of it) or its p99 passed %g times the lowest rate's",
			report.KneeAchieved*100, report.KneeP99))
		for _, c := range results.LoadCharts(sides) {
			load.Notes = append(load.Notes, c.Summaries...)
		}
		for _, s := range sides {
			if t := results.LoadTable(s); len(t.Rows) > 0 {
				t.Caption = sideCaption(s)
				load.Tables = append(load.Tables, t)
			}
		}
	}
	loaded := plot.Section{Title: "Loaded latency", Charts: chartsOf(charts, "loaded")}
	if len(loaded.Charts) > 0 {
		loaded.Notes = append(loaded.Notes, fmt.Sprintf("open-loop latency at one offered rate beside loader QPs streaming the bandwidth counterpart on the same device (--loaders); "+
			"the knee is the first level whose p99 passed %g times the lowest level's, or whose latency loop fell behind (achieved under %.0f%% of the rate)",
			report.KneeLoadedP99, report.KneeAchieved*100))
		for _, c := range results.LoadedCharts(sides) {
			loaded.Notes = append(loaded.Notes, c.Summaries...)
		}
		for _, s := range sides {
			if t := results.LoadedTable(s); len(t.Rows) > 0 {
				t.Caption = sideCaption(s)
				loaded.Tables = append(loaded.Tables, t)
			}
		}
	}
	// The spectra, one per latency point, come after the overview charts
	// and tables rather than between them.
	spectra := plot.Section{Title: "Latency spectra", Charts: chartsOf(charts, "spectrum"),
		Notes: []string{"each latency point's percentiles from its HdrHistogram, out to the last one its samples can tell"}}
	for _, s := range []*plot.Section{&lat, &load, &loaded, &spectra} {
		s.Notes = append([]string{display.LatencyMeaning}, s.Notes...)
	}
	var out []plot.Section
	for _, s := range []plot.Section{lat, load, loaded, bw, spectra} {
		if len(s.Tables) > 0 || len(s.Charts) > 0 {
			out = append(out, s)
		}
	}
	if t := chartsOf(charts, "trend"); len(t) > 0 {
		out = append(out, plot.Section{Title: "Trend across labels", Charts: t,
			Notes: []string{"each label's median over its runs, with its 95% interval where the runs are enough for one"}})
	}
	return out
}

func chartsOf(charts map[string][]results.NamedChart, kinds ...string) []*plot.Chart {
	var out []*plot.Chart
	for _, k := range kinds {
		for _, c := range charts[k] {
			out = append(out, c.Chart)
		}
	}
	return out
}

// comparisonSection compares the report's documents, docs (which paths
// name), against the base's, base (which bases name, loaded once by the
// report): the gate's outcome, what differs, the verdicts and the
// whiskers.
func comparisonSection(ctx context.Context, o CompareOptions, bases, paths []string, base, docs []*document.Document) (plot.Section, error) {
	th, err := compare.ParseThresholds(o.FailOn)
	if err != nil {
		return plot.Section{}, badInput("--fail-on: %v", err)
	}
	s := &Sides{Base: base, New: docs,
		BaseName: results.SideName(strings.Join(bases, " "), base), NewName: results.SideName(strings.Join(paths, " "), docs)}
	c, m, skipped, err := compareSides(ctx, s, o, th, metric.All())
	if err != nil {
		return plot.Section{}, err
	}
	g := c.Comparison.Gate
	sec := plot.Section{Title: "Comparison against the base", Notes: []string{
		c.Comparison.Summary(), "base: " + s.BaseName + "; new: " + s.NewName}}
	if len(c.Comparison.Meta) > 0 {
		t := plot.Table{Header: []string{"differs", "base", "new"}}
		for _, d := range c.Comparison.Meta {
			t.Rows = append(t.Rows, []string{d.Field, d.Base, d.New})
		}
		sec.Tables = append(sec.Tables, t)
	}
	sec.Tables = append(sec.Tables, results.ComparisonTable(g))
	if slices.ContainsFunc(g.Rows, func(r compare.GateRow) bool { return r.Metric.Percentile > 0 }) {
		sec.Notes = append(sec.Notes, display.LatencyMeaning)
	}
	sec.Notes = append(sec.Notes, c.Comparison.Notes()...)
	sec.Notes = append(sec.Notes, skipped...)
	caption := results.CaptionOf(append(slices.Clone(base), docs...))
	charts, err := results.ComparisonCharts("change against the base", g, m, caption)
	if err != nil {
		return plot.Section{}, badInput("comparison charts: %v", err)
	}
	for _, ch := range charts {
		sec.Charts = append(sec.Charts, ch.Chart)
	}
	return sec, nil
}
