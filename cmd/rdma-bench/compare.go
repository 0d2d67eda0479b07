package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

func init() {
	register("compare", "compare saved results against a baseline; exit 1 on a regression (a CI gate)", runCompare)
}

// compareFlags are the flags of compare.
type compareFlags struct {
	failOn, format, outFile, metrics, plotDir string
	baseLabel, label                          string
	strict, allowPartial, cleanOnly           bool
	ignore                                    []string
}

func runCompare(_ context.Context, args []string) error {
	fs := newFlagSet("compare")
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: rdma-bench compare [flags] BASE NEW\n       rdma-bench compare [flags] --base-label A --label B PATH...\n\n"+
			"BASE, NEW and PATH are files, directories or quoted glob patterns of saved documents.\n"+
			"exit status: 0 pass, 1 regression, 3 inconclusive (1 with --strict), 2 bad input\n\nflags:\n")
		fs.PrintDefaults()
	}
	var f compareFlags
	fs.StringVar(&f.failOn, "fail-on", compare.DefaultThresholdSpec, "gate thresholds: METRIC>+N% for latency and CPU, METRIC<-N% for bw and msgrate")
	fs.BoolVar(&f.strict, "strict", false, "an inconclusive gated row fails the gate (exit 1, not 3)")
	fs.StringVarP(&f.format, "output", "o", "table", "output format: "+strings.Join(compare.Formats, ", "))
	fs.StringVar(&f.outFile, "output-file", "", "write the output to this file instead of standard output: "+outfile.Rules)
	fs.StringArrayVar(&f.ignore, "ignore-param", nil, "compare points that differ in this measured parameter (repeatable): "+strings.Join(results.IgnorableParams, ", "))
	fs.BoolVar(&f.allowPartial, "allow-partial", false, "compare runs that were cut short (status partial)")
	fs.BoolVar(&f.cleanOnly, "clean-only", false, "leave out, point by point, the runs whose port counters say they were not clean (each format counts them)")
	fs.StringVar(&f.metrics, "metrics", "", "metrics to compare (default all): "+results.MetricNames())
	fs.StringVar(&f.plotDir, "plot", "", "also write the comparison's charts (SVG and PNG) into this directory")
	fs.StringVar(&f.baseLabel, "base-label", "", "take the base side from the documents labelled this")
	fs.StringVar(&f.label, "label", "", "take the new side from the documents labelled this")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	out, err := buildComparison(f, fs.Args())
	if err != nil {
		return err
	}
	dst, err := createOutput(f.outFile)
	if err != nil {
		return err
	}
	if f.plotDir != "" {
		if _, err := writeCharts(f.plotDir, out.charts); err != nil {
			dst.abort()
			return err
		}
	}
	if err := dst.commit(out.text); err != nil {
		return err
	}
	for _, n := range out.stderrNotes {
		fmt.Fprintf(os.Stderr, "rdma-bench compare: %s\n", n)
	}
	if code := out.report.Gate.ExitCode(); code != compare.ExitPass {
		return &exitStatus{code: code}
	}
	return nil
}

// comparison is everything compare writes, built before anything is.
type comparison struct {
	report      compare.Report
	text        []byte
	stderrNotes []string
	charts      []results.NamedChart
}

func buildComparison(f compareFlags, args []string) (*comparison, error) {
	th, err := compare.ParseThresholds(f.failOn)
	if err != nil {
		return nil, usageError("--fail-on: %v", err)
	}
	metrics, err := results.ParseMetrics(f.metrics)
	if err != nil {
		return nil, usageError("--metrics %q: %v", f.metrics, err)
	}
	colour := f.format == "table" && f.outFile == "" && os.Getenv("NO_COLOR") == "" && isatty.IsTerminal(os.Stdout.Fd())
	render, err := compare.RendererFor(f.format, colour)
	if err != nil {
		return nil, usageError("-o %s: %v", f.format, err)
	}
	s, err := loadSides(f.baseLabel, f.label, args)
	if err != nil {
		return nil, err
	}
	c, m, notes, err := compareSides(s, f, th, metrics)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := render(&buf, c.report); err != nil {
		return nil, err
	}
	switch {
	case len(notes) == 0:
	case f.format == "table":
		buf.WriteString("\nnot compared:\n")
		for _, n := range notes {
			fmt.Fprintf(&buf, "  %s\n", n)
		}
	case f.format == "markdown":
		buf.WriteString("\n**Not compared**\n\n")
		for _, n := range notes {
			fmt.Fprintf(&buf, "- %s\n", strings.ReplaceAll(n, "|", `\|`))
		}
	default:
		c.stderrNotes = notes
	}
	c.text = buf.Bytes()
	if f.plotDir != "" {
		caption := results.CaptionOf(append(slices.Clone(s.base), s.new...))
		title := "change of the new side against the base"
		if f.baseLabel != "" {
			title = "change of " + f.label + " against " + f.baseLabel
		}
		if c.charts, err = results.ComparisonCharts(title, c.report.Gate, m, caption); err != nil {
			return nil, usageError("--plot: %v", err)
		}
	}
	return c, nil
}

func (f compareFlags) metricsOrAll() string {
	if f.metrics == "" {
		return "any metric"
	}
	return f.metrics
}

// compareSides compares two sides' documents: the report, the matching
// and notes on what was not compared.
func compareSides(s *sides, f compareFlags, th []compare.Threshold, metrics []compare.Metric) (*comparison, *results.Matching, []string, error) {
	opt := results.Options{AllowPartial: f.allowPartial, CleanOnly: f.cleanOnly}
	bp, err := results.Pool(s.base, opt)
	if err != nil {
		return nil, nil, nil, usageError("base: %v", err)
	}
	np, err := results.Pool(s.new, opt)
	if err != nil {
		return nil, nil, nil, usageError("new: %v", err)
	}
	m, err := results.Match(bp, np, f.ignore)
	if err != nil {
		return nil, nil, nil, usageError("%v", err)
	}
	series, notes := m.Series(metrics)
	if len(series) == 0 {
		return nil, nil, nil, usageError("nothing to compare: no point has figures of %s on both sides", f.metricsOrAll())
	}
	rows := make([]compare.Row, 0, len(series))
	for _, se := range series {
		row, err := compare.Compare(se, compare.DefaultOptions())
		if err != nil {
			return nil, nil, nil, usageError("%v", err)
		}
		rows = append(rows, row)
	}
	c := &comparison{report: compare.Report{Title: "rdma-bench compare", BaseLabel: s.baseName, NewLabel: s.newName,
		Meta: results.MetaDiff(s.base, s.new, m), Gate: compare.Gate(rows, th, f.strict)}}
	for _, p := range m.BaseOnly {
		notes = append(notes, m.Describe(p)+": only in the base: not compared")
	}
	for _, p := range m.NewOnly {
		notes = append(notes, m.Describe(p)+": only in the new side: not compared")
	}
	return c, m, notes, nil
}

// sides are the documents of each side and their names.
type sides struct {
	base, new         []*results.Document
	baseName, newName string
}

// loadSides reads BASE NEW, or the labelled sides among PATHs.
func loadSides(baseLabel, label string, args []string) (*sides, error) {
	if (baseLabel == "") != (label == "") {
		return nil, usageError("--base-label and --label go together: name the label of each side")
	}
	if baseLabel != "" && baseLabel == label {
		return nil, usageError("--base-label and --label both name %q: name a different label for each side", label)
	}
	s := &sides{}
	if baseLabel != "" {
		if len(args) == 0 {
			return nil, usageError("name the documents to pick the labels from: files, directories or glob patterns")
		}
		docs, err := loadDocs(args...)
		if err != nil {
			return nil, usageError("%v", err)
		}
		if s.base, err = results.SelectLabel(docs, baseLabel); err != nil {
			return nil, usageError("--base-label: %v", err)
		}
		if s.new, err = results.SelectLabel(docs, label); err != nil {
			return nil, usageError("--label: %v", err)
		}
		s.baseName, s.newName = results.SideName("label "+baseLabel, s.base), results.SideName("label "+label, s.new)
		return s, nil
	}
	if len(args) != 2 {
		return nil, usageError("want BASE and NEW (files, directories or quoted glob patterns), or --base-label and --label; got %d argument(s)", len(args))
	}
	var err error
	if s.base, err = loadDocs(args[0]); err != nil {
		return nil, usageError("base: %v", err)
	}
	if s.new, err = loadDocs(args[1]); err != nil {
		return nil, usageError("new: %v", err)
	}
	s.baseName, s.newName = results.SideName(args[0], s.base), results.SideName(args[1], s.new)
	return s, nil
}

// outputFile is compare's and gate's --output-file: the whole output,
// written once complete (see package outfile); "" or "-" is standard
// output.
type outputFile struct{ f *outfile.File }

// createOutput starts the output file, so that an unusable one fails
// before anything is measured or written.
func createOutput(path string) (*outputFile, error) {
	f, err := outfile.Create(path)
	if err != nil {
		return nil, usageError("--output-file %v", err)
	}
	return &outputFile{f: f}, nil
}

// commit writes data and puts it in place.
func (o *outputFile) commit(data []byte) error {
	if _, err := o.f.Write(data); err != nil {
		o.f.Abort()
		return err
	}
	return o.f.Commit()
}

// abort drops the unfinished output.
func (o *outputFile) abort() { o.f.Abort() }
