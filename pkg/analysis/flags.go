package analysis

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rdma-bench/rdma-bench/internal/outfile"
	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

// Register adds the flags that choose the documents' sides and charts,
// of plot and report, to fs.
func (c *ChartOptions) Register(fs *pflag.FlagSet) {
	fs.StringVar(&c.Metric, "metric", "", "the trend's metric: "+results.MetricNames()+" (default lat.p50 of latency points and bw of bandwidth points)")
	fs.StringVar(&c.Labels, "labels", "", "the labels in order, comma-separated (default: by the documents' started_at)")
	fs.BoolVar(&c.AllowPartial, "allow-partial", false, "use runs that were cut short (status partial)")
	fs.BoolVar(&c.CleanOnly, "clean-only", false, "leave out, point by point, the runs whose port counters say they were not clean (the charts' caption and the notes count them and name a point left with none)")
}

// CompareFlags are the flags of compare: its options, the file its
// output goes to ("" or "-": standard output) and the directory of its
// charts ("": none).
type CompareFlags struct {
	CompareOptions
	OutFile, PlotDir string
}

// Register adds compare's flags to fs.
func (f *CompareFlags) Register(fs *pflag.FlagSet) {
	o := &f.CompareOptions
	fs.StringVar(&o.FailOn, "fail-on", compare.DefaultThresholdSpec, "gate thresholds: METRIC>+N% for latency and CPU, METRIC<-N% for bw and msgrate "+
		"(not the gate command's default: a gate point is one figure paired within a time budget; see rdma-bench gate --help)")
	fs.BoolVar(&o.Strict, "strict", false, "an inconclusive gated row fails the gate (exit 1, not 3)")
	fs.StringVarP(&o.Format, "output", "o", "table", "output format: "+strings.Join(compare.Formats, ", "))
	fs.StringVar(&f.OutFile, "output-file", "", "write the output to this file instead of standard output: "+outfile.Rules)
	fs.StringArrayVar(&o.Ignore, "ignore-param", nil, "compare points that differ in this measured parameter (repeatable): "+strings.Join(results.IgnorableParams, ", "))
	fs.BoolVar(&o.AllowPartial, "allow-partial", false, "compare runs that were cut short (status partial)")
	fs.BoolVar(&o.CleanOnly, "clean-only", false, "leave out, point by point, the runs whose port counters say they were not clean (each format counts them)")
	fs.StringVar(&o.Metrics, "metrics", "", "metrics to compare (default all): "+results.MetricNames())
	fs.StringVar(&f.PlotDir, "plot", "", "also write the comparison's charts (SVG and PNG) into this directory")
	fs.StringVar(&o.BaseLabel, "base-label", "", "take the base side from the documents labelled this")
	fs.StringVar(&o.Label, "label", "", "take the new side from the documents labelled this")
	fs.Var(&sessionNoise{&o.SessionNoisePct}, "session-noise", sessionNoiseUsage)
	fs.DurationVar(&o.SessionGap, "session-gap", results.DefaultSessionGap, "documents of a side that start within this of the one before's last run are one session")
}

const sessionNoiseUsage = "N%: how much a point's session median moves from one session to the next (a standard deviation, " +
	"from the lab's A/A history: rdma-bench history); used where the sides have too few sessions to measure it " +
	"(default: unknown, and one session a side decides nothing; 0: sessions do not drift)"

// sessionNoise is --session-noise: a percentage, "N%" or "N"; nil until
// set.
type sessionNoise struct{ p **float64 }

func (s *sessionNoise) String() string {
	if s.p == nil || *s.p == nil {
		return ""
	}
	return strconv.FormatFloat(**s.p, 'g', -1, 64) + "%"
}

func (s *sessionNoise) Set(v string) error {
	x, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "%"), 64)
	if err != nil || !(x >= 0 && x < 100) {
		return fmt.Errorf("want a percentage from 0 to below 100, such as 3%%")
	}
	*s.p = &x
	return nil
}

func (s *sessionNoise) Type() string { return "N%" }

// Register adds report's flags but its output to fs: the title, the
// bases and their comparison's, then the charts' (ChartOptions).
func (o *ReportOptions) Register(fs *pflag.FlagSet) {
	fs.StringVar(&o.Title, "title", DefaultReportTitle, "the report's title")
	fs.StringArrayVar(&o.Bases, "base", nil, "documents to compare the others against (a file, directory or glob pattern; repeatable)")
	fs.StringVar(&o.FailOn, "fail-on", compare.DefaultThresholdSpec, "with --base: the gate's thresholds, as compare takes them")
	fs.StringArrayVar(&o.Ignore, "ignore-param", nil, "with --base: compare points that differ in this measured parameter (repeatable): "+strings.Join(results.IgnorableParams, ", "))
	fs.Var(&sessionNoise{&o.SessionNoisePct}, "session-noise", "with --base: "+sessionNoiseUsage)
	o.Charts.Register(fs)
}

// DefaultReportTitle is report's --title when not given; a fabric
// document's report then names the sweep instead.
const DefaultReportTitle = "rdma-bench report"
