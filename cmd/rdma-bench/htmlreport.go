package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
	"github.com/rdma-bench/rdma-bench/pkg/report"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

func init() {
	register("report", "write saved results, their charts and a comparison as one self-contained HTML file", runReport)
}

func runReport(_ context.Context, args []string) error {
	fs := newFlagSet("report")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: rdma-bench report [flags] FILE... [-o report.html] [--base BASE...]\n\n"+
			"FILE and BASE: saved documents, directories or quoted glob patterns\n\nflags:\n")
		fs.PrintDefaults()
	}
	var c chartFlags
	var f compareFlags
	out := fs.StringP("output", "o", "report.html", "the HTML file to write: "+outfile.Rules)
	title := fs.String("title", "rdma-bench report", "the report's title")
	bases := fs.StringArray("base", nil, "documents to compare the others against (a file, directory or glob pattern; repeatable)")
	fs.StringVar(&f.failOn, "fail-on", compare.DefaultThresholdSpec, "with --base: the gate's thresholds, as compare takes them")
	fs.StringArrayVar(&f.ignore, "ignore-param", nil, "with --base: compare points that differ in this measured parameter (repeatable): "+strings.Join(results.IgnorableParams, ", "))
	addChartFlags(fs, &c)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError("name the documents to report: files, directories or glob patterns")
	}
	if fi, err := os.Stat(filepath.Dir(*out)); err != nil || !fi.IsDir() {
		return usageError("-o %s: directory %s does not exist", *out, filepath.Dir(*out))
	}
	docs, sides, err := c.sidesOf(fs.Args())
	if err != nil {
		return err
	}
	charts, err := c.charts(docs, sides, nil)
	if err != nil {
		return err
	}
	r := plot.Report{Title: *title, Meta: results.Meta(docs)}
	r.Sections = append(r.Sections, figureSections(sides, charts)...)
	if len(*bases) > 0 {
		f.allowPartial, f.cleanOnly = c.allowPartial, c.cleanOnly
		sec, err := comparisonSection(f, *bases, fs.Args(), docs)
		if err != nil {
			return err
		}
		r.Sections = append(r.Sections, sec)
	}
	if err := plot.WriteHTMLFile(*out, r); err != nil {
		return usageError("-o %s: %v", *out, unwrapPath(err))
	}
	fmt.Fprintf(os.Stderr, "wrote %s\n", *out)
	return nil
}

// figureSections are the report's latency, load, bandwidth, spectra and
// trend sections: each side's table and the charts.
func figureSections(sides []*results.Side, charts map[string][]results.NamedChart) []plot.Section {
	lat := plot.Section{Title: "Latency", Charts: chartsOf(charts, "latency")}
	bw := plot.Section{Title: "Bandwidth and message rate", Charts: chartsOf(charts, "bandwidth", "msgrate", "cpu")}
	for _, s := range sides {
		name := "documents without a label"
		if s.Label != "" {
			name = "label " + s.Label
		}
		var files []string
		for _, d := range s.Docs {
			files = append(files, d.Path)
		}
		note := fmt.Sprintf("%s: %s", name, strings.Join(files, ", "))
		if t := results.LatencyTable(s); len(t.Rows) > 0 {
			lat.Notes = append(lat.Notes, note)
			lat.Tables = append(lat.Tables, t)
		}
		if t := results.BandwidthTable(s); len(t.Rows) > 0 {
			bw.Notes = append(bw.Notes, note)
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
				load.Tables = append(load.Tables, t)
			}
		}
	}
	// The spectra, one per latency point, come after the overview charts
	// and tables rather than between them.
	spectra := plot.Section{Title: "Latency spectra", Charts: chartsOf(charts, "spectrum"),
		Notes: []string{"each latency point's percentiles from its HdrHistogram, out to the last one its samples can tell"}}
	var out []plot.Section
	for _, s := range []plot.Section{lat, load, bw, spectra} {
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

// comparisonSection compares the report's documents against --base: the
// gate's outcome, what differs, the verdicts and the whiskers.
func comparisonSection(f compareFlags, bases, paths []string, docs []*results.Document) (plot.Section, error) {
	th, err := compare.ParseThresholds(f.failOn)
	if err != nil {
		return plot.Section{}, usageError("--fail-on: %v", err)
	}
	base, err := loadDocs(bases...)
	if err != nil {
		return plot.Section{}, usageError("--base: %v", err)
	}
	s := &sides{base: base, new: docs,
		baseName: results.SideName(strings.Join(bases, " "), base), newName: results.SideName(strings.Join(paths, " "), docs)}
	c, m, notes, err := compareSides(s, f, th, compare.Metrics())
	if err != nil {
		return plot.Section{}, err
	}
	g := c.report.Gate
	sec := plot.Section{Title: "Comparison against the base", Notes: []string{
		c.report.Summary(), "base: " + s.baseName + "; new: " + s.newName}}
	if len(c.report.Meta) > 0 {
		t := plot.Table{Header: []string{"differs", "base", "new"}}
		for _, d := range c.report.Meta {
			t.Rows = append(t.Rows, []string{d.Field, d.Base, d.New})
		}
		sec.Tables = append(sec.Tables, t)
	}
	sec.Tables = append(sec.Tables, results.ComparisonTable(g))
	sec.Notes = append(sec.Notes, c.report.Notes()...)
	sec.Notes = append(sec.Notes, notes...)
	caption := results.CaptionOf(append(slices.Clone(base), docs...))
	charts, err := results.ComparisonCharts("change against the base", g, m, caption)
	if err != nil {
		return plot.Section{}, usageError("comparison charts: %v", err)
	}
	for _, ch := range charts {
		sec.Charts = append(sec.Charts, ch.Chart)
	}
	return sec, nil
}
