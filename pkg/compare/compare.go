package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"golang.org/x/perf/benchmath"
)

// Series holds one benchmark point and metric: the value of every
// repetition on each side.
type Series struct {
	// Point labels the benchmark point, such as "write_lat RC poll 64 B".
	Point string
	// Metric is the quantity compared.
	Metric metric.Metric
	// Base and New are the per-repetition values of each side, in the
	// metric's unit. They must be positive and finite.
	Base, New []float64
	// BaseRuns and NewRuns count each side's runs that were not clean.
	BaseRuns, NewRuns RunCounts
	// BaseSessions and NewSessions, when set, number the session of each
	// value of Base and New: runs taken together in time, which share the
	// machine's drift of that time, so that their spread understates the
	// difference between two sessions. Nil: the values are independent.
	BaseSessions, NewSessions []int
}

// RunCounts count one side's runs that carry a caveat: runs whose port
// counters say they were not clean (a retransmission or an error during
// the run), runs whose percentile came from fewer samples than it needs,
// and latency runs whose median sat at the scheduler's tick.
type RunCounts struct {
	// Unclean are among the side's values; Dropped were left out of them
	// (rdma-bench compare --clean-only).
	Unclean, Dropped int
	// Thin are runs whose value is a percentile from fewer samples than
	// it needs (display.Thin): the run's largest sample, or near it.
	Thin int
	// Tick are latency runs whose median sat at the scheduler's tick
	// (display.AtTick): the two sides took turns on one CPU.
	Tick int
	// Partial are runs cut short (status partial) among the side's values
	// (rdma-bench compare --allow-partial).
	Partial int
}

// Side summarises one side of a comparison as benchstat does.
type Side struct {
	// Median is the sample median, in the metric's unit.
	Median float64
	// Lo and Hi bound the distribution-free confidence interval of the
	// median (benchmath's); they are -Inf or +Inf when the sample is too
	// small for the level (fewer than 6 values at 95%).
	Lo, Hi float64
	// Confidence is the interval's actual coverage, at least the level
	// asked for.
	Confidence float64
	// N is the number of values; Sessions the sessions they came in (0:
	// not known).
	N, Sessions int
	// RunCounts count the side's runs that were not clean.
	RunCounts
}

// Row is the evidence and verdict for one point and metric.
type Row struct {
	// Point and Metric identify the row.
	Point  string
	Metric metric.Metric
	// Base and New summarise each side.
	Base, New Side
	// ChangePct is the change every format shows, in percent of the base:
	// the Hodges-Lehmann estimate of new/base (see [ShiftInterval]), the
	// centre of the interval below, so that it always lies inside it.
	ChangePct float64
	// MedianChangePct is the change of the median, (new median / base
	// median - 1) x 100, as benchstat prints it; usually close to
	// ChangePct, but not always inside its interval, which is why it is
	// not the one shown.
	MedianChangePct float64
	// ChangeLoPct and ChangeHiPct bound the confidence interval of the
	// change (see [ShiftInterval]); infinite when the sample is too small.
	ChangeLoPct, ChangeHiPct float64
	// ChangeConfidence is that interval's actual coverage.
	ChangeConfidence float64
	// P is the two-sided Mann-Whitney U test's p-value (benchmath's).
	P float64
	// Method says how the change and its interval were estimated: over
	// runs, over sessions, or not at all (one session a side): the
	// Method* constants. SessionSpreadPct is the standard deviation of one
	// session's median between sessions, in percent, with MethodSessions
	// (NaN otherwise).
	Method           string
	SessionSpreadPct float64
	// Options are the settings the row was computed with.
	Options Options
	// Verdict is the outcome; Reason explains it in one sentence.
	Verdict Verdict
	Reason  string
	// RunsNeeded, for an Inconclusive row, is the number of runs per side
	// recommended or estimated to decide; 0 otherwise.
	RunsNeeded int
	// DetectableLoPct and DetectableHiPct, for an Inconclusive row, are the
	// smallest drop and rise (negative and positive percentages) that runs
	// as spread as these, as many, would decide: a true change beyond the
	// noise band by the interval's half-width plus 0.84 standard errors
	// (decided about 4 times in 5; see detectMargin). -100 and +Inf when
	// the interval is unbounded (no change can be decided); 0 for a
	// decided row.
	DetectableLoPct, DetectableHiPct float64
	// Hint, for an Inconclusive row, is what would decide it: a rerun with
	// --repeat RunsNeeded, or, when that is more runs than practical, the
	// paired gate (rdma-bench gate); "" for a decided row.
	Hint string
	// Warnings are benchmath's warnings about the samples, such as
	// "need >= 6 samples for confidence interval at level 0.95".
	Warnings []string
}

// Compare summarises both sides of s, tests the difference and gives the
// verdict. With lo and hi the bounds of the change's interval and B the
// noise band, in percent:
//
//   - Inconclusive, "too few runs", when the U test cannot give p < Alpha
//     at all with these sample sizes ([MinPValue]); RunsNeeded is
//     [RecommendedRuns] and no change is detectable;
//   - Slower or Faster when p < Alpha and lo > B or hi < -B, read through
//     the metric's direction;
//   - Same when -B <= lo and hi <= B, significant or not;
//   - Inconclusive otherwise, with RunsNeeded estimated from the interval's
//     width taken to shrink as sqrt(1/n1 + 1/n2) around the same centre,
//     and the smallest changes these runs would decide.
//
// Bad input (an empty side, a NaN, infinite, zero or negative value; the
// change is a ratio, so values must be positive) is an error naming the
// point, the metric and the side.
func Compare(s Series, o Options) (Row, error) {
	if err := o.Validate(); err != nil {
		return Row{}, fmt.Errorf("point %q, metric %s: %w", s.Point, s.Metric.Name, err)
	}
	if err := s.validate(); err != nil {
		return Row{}, err
	}
	th := &benchmath.Thresholds{CompareAlpha: o.Alpha}
	// NewSample sorts in place: give it copies.
	base := benchmath.NewSample(slices.Clone(s.Base), th)
	nw := benchmath.NewSample(slices.Clone(s.New), th)
	row := Row{Point: s.Point, Metric: s.Metric, Options: o}
	var warn []error
	row.Base, warn = summarise(base, o.Confidence, warn)
	row.New, warn = summarise(nw, o.Confidence, warn)
	row.Base.RunCounts, row.New.RunCounts = s.BaseRuns, s.NewRuns
	cmp := benchmath.AssumeNothing.Compare(base, nw)
	row.P = cmp.P
	warn = append(warn, cmp.Warnings...)
	for _, w := range warn {
		if !slices.Contains(row.Warnings, w.Error()) {
			row.Warnings = append(row.Warnings, w.Error())
		}
	}
	row.MedianChangePct = (row.New.Median/row.Base.Median - 1) * 100
	sh, err := ShiftInterval(base.Values, nw.Values, o.Confidence)
	if err != nil {
		return Row{}, fmt.Errorf("point %q, metric %s: %w", s.Point, s.Metric.Name, err)
	}
	row.ChangeLoPct, row.ChangeHiPct = sh.LoPct, sh.HiPct
	row.ChangeConfidence, row.ChangePct = sh.Confidence, sh.EstimatePct
	row.SessionSpreadPct = math.NaN()
	if !applySessions(&row, s, o) {
		row.Verdict, row.Reason = Inconclusive, oneSessionReason(&row)
		row.DetectableLoPct, row.DetectableHiPct, row.Hint = -100, math.Inf(1), sessionHint
		return row, nil
	}
	decide(&row)
	return row, nil
}

func summarise(s *benchmath.Sample, confidence float64, warn []error) (Side, []error) {
	sum := benchmath.AssumeNothing.Summary(s, confidence)
	side := Side{Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi, Confidence: sum.Confidence, N: len(s.Values)}
	return side, append(warn, sum.Warnings...)
}

// validate checks that both sides hold positive finite values, and a
// session for each value when sessions are given.
func (s Series) validate() error {
	if s.Metric.Name == "" {
		return fmt.Errorf("point %q: metric has no name", s.Point)
	}
	if (s.BaseSessions == nil) != (s.NewSessions == nil) ||
		s.BaseSessions != nil && (len(s.BaseSessions) != len(s.Base) || len(s.NewSessions) != len(s.New)) {
		return fmt.Errorf("point %q, metric %s: sessions for %d and %d values of %d and %d", s.Point, s.Metric.Name,
			len(s.BaseSessions), len(s.NewSessions), len(s.Base), len(s.New))
	}
	for _, side := range []struct {
		name string
		v    []float64
	}{{"base", s.Base}, {"new", s.New}} {
		if len(side.v) == 0 {
			return fmt.Errorf("point %q, metric %s: %s side has no values", s.Point, s.Metric.Name, side.name)
		}
		for i, x := range side.v {
			if !(x > 0) || math.IsInf(x, 1) {
				return fmt.Errorf("point %q, metric %s: %s value %d of %d is %v: want a positive finite number",
					s.Point, s.Metric.Name, side.name, i+1, len(side.v), x)
			}
		}
	}
	return nil
}
