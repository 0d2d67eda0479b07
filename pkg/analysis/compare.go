package analysis

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

// CompareOptions are compare's settings (report's --base takes some).
type CompareOptions struct {
	FailOn  string // the gate's thresholds, as compare.ParseThresholds takes them
	Format  string // one of compare.Formats
	Colour  bool   // colour the table
	Metrics string // the metrics to compare, comma-separated; "" all
	Plot    bool   // draw the comparison's charts too

	BaseLabel, Label string // take the sides by label instead of BASE NEW
	Ignore           []string
	Strict           bool // an inconclusive gated row fails the gate
	AllowPartial     bool // compare runs that were cut short
	CleanOnly        bool // leave out the runs that were not clean
	// SessionNoisePct is --session-noise (nil: not given); SessionGap how
	// close documents are to be one session (0: DefaultSessionGap).
	SessionNoisePct *float64
	SessionGap      time.Duration
}

// CompareOutput is everything compare writes, built before anything is.
type CompareOutput struct {
	Comparison compare.Comparison
	// Text is the rendered report, with the notes on what was not
	// compared where the format has room for them.
	Text []byte
	// StderrNotes are the notes the format had no room for.
	StderrNotes []string
	// Charts are the comparison's charts, with CompareOptions.Plot.
	Charts []results.NamedChart
}

// BuildComparison loads the sides that args name (BASE NEW, or the
// documents to pick the labels from), compares them and renders the
// report. Notes on documents left out go to notes. It stops when ctx
// ends, with ctx's cause.
func BuildComparison(ctx context.Context, o CompareOptions, args []string, notes io.Writer) (*CompareOutput, error) {
	th, err := compare.ParseThresholds(o.FailOn)
	if err != nil {
		return nil, badInput("--fail-on: %v", err)
	}
	metrics, err := results.ParseMetrics(o.Metrics)
	if err != nil {
		return nil, badInput("--metrics %q: %v", o.Metrics, err)
	}
	render, err := compare.RendererFor(o.Format, o.Colour)
	if err != nil {
		return nil, badInput("-o %s: %v", o.Format, err)
	}
	s, err := LoadSides(ctx, o.BaseLabel, o.Label, args, notes)
	if err != nil {
		return nil, err
	}
	c, m, skipped, err := compareSides(ctx, s, o, th, metrics)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	var buf bytes.Buffer
	if err := render(&buf, c.Comparison); err != nil {
		return nil, err
	}
	switch {
	case len(skipped) == 0:
	case o.Format == "table":
		buf.WriteString("\nnot compared:\n")
		for _, n := range skipped {
			fmt.Fprintf(&buf, "  %s\n", n)
		}
	case o.Format == "markdown":
		buf.WriteString("\n**Not compared**\n\n")
		for _, n := range skipped {
			fmt.Fprintf(&buf, "- %s\n", strings.ReplaceAll(n, "|", `\|`))
		}
	default:
		c.StderrNotes = skipped
	}
	c.Text = buf.Bytes()
	if o.Plot {
		caption := results.CaptionOf(append(slices.Clone(s.Base), s.New...))
		title := "change of the new side against the base"
		if o.BaseLabel != "" {
			title = "change of " + o.Label + " against " + o.BaseLabel
		}
		if c.Charts, err = results.ComparisonCharts(title, c.Comparison.Gate, m, caption); err != nil {
			return nil, badInput("--plot: %v", err)
		}
	}
	return c, nil
}

func (o CompareOptions) metricsOrAll() string {
	if o.Metrics == "" {
		return "any metric"
	}
	return o.Metrics
}

// compareSides compares two sides' documents: the report, the matching
// and notes on what was not compared. It stops when ctx ends, with ctx's
// cause.
func compareSides(ctx context.Context, s *Sides, o CompareOptions, th []compare.Threshold, metrics []metric.Metric) (*CompareOutput, *results.Matching, []string, error) {
	opt := results.Options{AllowPartial: o.AllowPartial, CleanOnly: o.CleanOnly}
	bp, err := results.Pool(s.Base, opt)
	if err != nil {
		return nil, nil, nil, badInput("base: %v", err)
	}
	np, err := results.Pool(s.New, opt)
	if err != nil {
		return nil, nil, nil, badInput("new: %v", err)
	}
	m, err := results.Match(bp, np, o.Ignore)
	if err != nil {
		return nil, nil, nil, badInput("%v", err)
	}
	gap := o.SessionGap
	if gap <= 0 {
		gap = results.DefaultSessionGap
	}
	series, notes := m.Series(metrics, results.SessionsOf(s.Base, gap), results.SessionsOf(s.New, gap))
	if len(series) == 0 {
		why := ""
		if u := results.Unmeasured(append(slices.Clone(s.Base), s.New...)); u != "" {
			why = ": " + u
		}
		return nil, nil, nil, badInput("nothing to compare: no point has figures of %s on both sides%s", o.metricsOrAll(), why)
	}
	copt := compare.DefaultOptions()
	if o.SessionNoisePct != nil {
		copt.SessionNoisePct = *o.SessionNoisePct
	}
	rows := make([]compare.Row, 0, len(series))
	for _, se := range series {
		if ctx.Err() != nil {
			return nil, nil, nil, context.Cause(ctx)
		}
		row, err := compare.Compare(se, copt)
		if err != nil {
			return nil, nil, nil, badInput("%v", err)
		}
		rows = append(rows, row)
	}
	c := &CompareOutput{Comparison: compare.Comparison{Title: "rdma-bench compare", BaseLabel: s.BaseName, NewLabel: s.NewName,
		Meta: results.MetaDiff(s.Base, s.New, m), Gate: compare.Gate(rows, th, o.Strict)}}
	thinNoVerdict(&c.Comparison.Gate)
	for _, p := range m.BaseOnly {
		notes = append(notes, m.Describe(p)+": only in the base: not compared")
	}
	for _, p := range m.NewOnly {
		notes = append(notes, m.Describe(p)+": only in the new side: not compared")
	}
	return c, m, notes, nil
}

// Sides are the documents of each side of a comparison and their names.
type Sides struct {
	Base, New         []*document.Document
	BaseName, NewName string
}

// LoadSides reads BASE NEW, or the labelled sides among the documents
// args name. It stops when ctx ends, with ctx's cause.
func LoadSides(ctx context.Context, baseLabel, label string, args []string, notes io.Writer) (*Sides, error) {
	if (baseLabel == "") != (label == "") {
		return nil, badInput("--base-label and --label go together: name the label of each side")
	}
	if baseLabel != "" && baseLabel == label {
		return nil, badInput("--base-label and --label both name %q: name a different label for each side", label)
	}
	s := &Sides{}
	if baseLabel != "" {
		if len(args) == 0 {
			return nil, badInput("name the documents to pick the labels from: files, directories or glob patterns")
		}
		docs, err := LoadDocs(ctx, notes, args...)
		if err != nil {
			return nil, loadError(ctx, "", err)
		}
		if s.Base, err = results.SelectLabel(docs, baseLabel); err != nil {
			return nil, badInput("--base-label: %v", err)
		}
		if s.New, err = results.SelectLabel(docs, label); err != nil {
			return nil, badInput("--label: %v", err)
		}
		s.BaseName, s.NewName = results.SideName("label "+baseLabel, s.Base), results.SideName("label "+label, s.New)
		return s, nil
	}
	if len(args) != 2 {
		return nil, badInput("want BASE and NEW (files, directories or quoted glob patterns), or --base-label and --label; got %d argument(s)", len(args))
	}
	var err error
	if s.Base, err = LoadDocs(ctx, notes, args[0]); err != nil {
		return nil, loadError(ctx, "base", err)
	}
	if s.New, err = LoadDocs(ctx, notes, args[1]); err != nil {
		return nil, loadError(ctx, "new", err)
	}
	s.BaseName, s.NewName = results.SideName(args[0], s.Base), results.SideName(args[1], s.New)
	return s, nil
}
