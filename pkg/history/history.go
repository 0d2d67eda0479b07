// Package history reads saved results as a series in time, session by
// session, and finds where each point's performance changed: nightly CI
// results and firmware QA's stored sessions, read by `rdma-bench history`.
//
// A session (package results: a document, or documents back to back)
// gives one value per point and metric: the median of its runs. Each
// point's sessions, in time order, are searched for change points by
// E-divisive means with a permutation test ([Detector]); the steps found
// split the series into segments, each with its level (the median of its
// sessions' values). A step is a regression when the level moved the way
// the metric's direction calls worse, and gated when it moved beyond the
// metric's threshold; a gated regression among the newest sessions is
// what the command fails on.
package history

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rdma-bench/rdma-bench/internal/inputerr"
	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

// Options are a history's settings.
type Options struct {
	Detector
	// Thresholds say how large a step must be to be gated, by metric
	// (compare's --fail-on); a metric without one is never gated.
	Thresholds []compare.Threshold
	// Metrics are the metrics followed; none: each point's headline
	// (lat.p50 for latency points, bw for bandwidth points).
	Metrics []metric.Metric
	// Recent is how many of the newest sessions a gated regression must
	// start in to fail the history: older ones are reported, not failed.
	Recent int
	// SessionGap groups documents into sessions (results.SessionsOf).
	SessionGap time.Duration
	// Now is the time clocks in the future are judged against (time.Now
	// when zero); Skew the most a document may be ahead of it.
	Now  time.Time
	Skew time.Duration
}

// Session is one session's value of a series.
type Session struct {
	Start time.Time `json:"start"`
	// Label and Host are the session's documents' (the first one's).
	Label string `json:"label,omitempty"`
	Host  string `json:"host,omitempty"`
	// Value is the median of the session's runs; Runs how many.
	Value float64 `json:"value"`
	Runs  int     `json:"runs"`
	// Unclean counts the runs whose port counters moved.
	Unclean int    `json:"unclean_runs"`
	Path    string `json:"path"`
}

// Step is a change point: the series moved between session Index-1 and
// Index from the level Before to After.
type Step struct {
	Index      int       `json:"index"`
	At         time.Time `json:"at"`
	Before     float64   `json:"before"`
	After      float64   `json:"after"`
	ChangePct  float64   `json:"change_pct"`
	P          float64   `json:"p_value"`
	Regression bool      `json:"regression"`
	// Gated is true when the change is beyond the metric's threshold;
	// Recent when it starts among the newest Options.Recent sessions.
	Gated  bool `json:"gated"`
	Recent bool `json:"recent"`
}

// Series is one point and metric followed across sessions.
type Series struct {
	Point    string    `json:"point"`
	Metric   string    `json:"metric"`
	Unit     string    `json:"unit"`
	Latency  bool      `json:"latency"`
	TCP      bool      `json:"tcp"`
	Sessions []Session `json:"sessions"`
	Steps    []Step    `json:"steps"`
	Levels   []float64 `json:"levels"` // each session's segment level
	Stop     float64   `json:"stop_p_value"`
	// Needed is the fewest sessions the detector looks at.
	Needed  int    `json:"sessions_needed"`
	Outcome string `json:"outcome"`
	metric  metric.Metric
	th      *compare.Threshold
}

// Outcomes of a series.
const (
	OutcomeSteady     = "steady"     // no gated regression among the newest sessions
	OutcomeRegression = "regression" // a gated regression among the newest sessions
	OutcomeTooFew     = "too few sessions"
)

// Result is a whole history.
type Result struct {
	Series []*Series `json:"series"`
	// Sessions counts the sessions of the documents; Notes say what was
	// left out and why.
	Sessions int      `json:"sessions"`
	Notes    []string `json:"notes"`
	Settings Settings `json:"settings"`
	ExitCode int      `json:"exit_code"`
	Summary  string   `json:"summary"`
}

// Settings are the detector's, as applied.
type Settings struct {
	Method       string   `json:"method"`
	Alpha        float64  `json:"alpha"`
	Permutations int      `json:"permutations"`
	MinSegment   int      `json:"min_segment"`
	Recent       int      `json:"recent"`
	Thresholds   []string `json:"thresholds"`
}

// Exit codes.
const (
	ExitSteady     = 0
	ExitRegression = 1
	// ExitTooFew: no series had the sessions the detector needs to look.
	ExitTooFew = 3
)

// Check says what is wrong with the options.
func (o Options) Check() error {
	switch {
	case !(o.Alpha > 0 && o.Alpha < 0.5):
		return fmt.Errorf("--alpha %g: want a level between 0 and 0.5, such as 0.01", o.Alpha)
	case o.Permutations < 19 || o.Permutations > 100000:
		return fmt.Errorf("--permutations %d: want 19 to 100000", o.Permutations)
	case 1/float64(o.Permutations+1) > o.Alpha:
		return fmt.Errorf("--permutations %d cannot give a p-value at --alpha %g: want at least %d", o.Permutations, o.Alpha, int(math.Ceil(1/o.Alpha))-1)
	case o.MinSegment < 2:
		return fmt.Errorf("--min-segment %d: want at least 2 sessions", o.MinSegment)
	case o.Recent < 1:
		return fmt.Errorf("--recent %d: want at least 1 session", o.Recent)
	case o.SessionGap < 0:
		return fmt.Errorf("--session-gap %v: want a duration of 0 or more", o.SessionGap)
	}
	return nil
}

// Analyze builds the series of docs and finds their steps. What the
// documents cannot make a history of (one session, clocks in the future,
// two sessions of one host overlapping) is bad input, marked as package
// inputerr does.
func Analyze(ctx context.Context, docs []*document.Document, o Options) (*Result, error) {
	if err := o.Check(); err != nil {
		return nil, inputerr.New("%v", err)
	}
	if len(docs) == 0 {
		return nil, inputerr.New("no documents: name saved results, a directory or a glob pattern")
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	for _, d := range docs {
		if d.StartedAt.After(now.Add(o.Skew)) {
			return nil, inputerr.New("%s: started_at %s is in the future (now %s): a clock that was wrong would put the session out of order; fix or remove the document",
				d.Path, d.StartedAt.Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		}
	}
	if err := checkOverlap(docs); err != nil {
		return nil, err
	}
	sess := results.SessionsOf(docs, o.SessionGap)
	res := &Result{Sessions: sess.Count(), Settings: Settings{Method: "E-divisive means, permutation test", Alpha: o.Alpha,
		Permutations: o.Permutations, MinSegment: o.MinSegment, Recent: o.Recent}}
	for _, t := range o.Thresholds {
		res.Settings.Thresholds = append(res.Settings.Thresholds, t.String())
	}
	if res.Sessions < 2 {
		return nil, inputerr.New("a history needs sessions at two times at least; the documents hold one session (documents back to back, within --session-gap %v, are one)", o.SessionGap)
	}
	series, notes, err := build(docs, sess, o)
	if err != nil {
		return nil, err
	}
	res.Notes = notes
	if len(series) == 0 {
		return nil, inputerr.New("no point was measured in two sessions or more: the documents measure different points (%s)", strings.Join(notes, "; "))
	}
	for _, s := range series {
		if err := s.detect(ctx, o); err != nil {
			return nil, err
		}
		res.Series = append(res.Series, s)
	}
	res.ExitCode, res.Summary = res.outcome()
	return res, nil
}

// checkOverlap refuses documents of one host whose runs interleave in
// time: one host measures one document at a time, so it is a document
// saved twice or a clock that jumped; and a run that started before its
// document, a clock that went back.
func checkOverlap(docs []*document.Document) error {
	type span struct {
		from, to time.Time
		path     string
	}
	byHost := map[string][]span{}
	for _, d := range docs {
		to := d.StartedAt
		for _, r := range d.Results {
			for _, run := range r.Runs {
				if !run.StartedAt.IsZero() && run.StartedAt.Before(d.StartedAt) {
					return inputerr.New("%s: a run started at %s, before its document (%s): the clock went back during the session",
						d.Path, run.StartedAt.Format(time.RFC3339), d.StartedAt.Format(time.RFC3339))
				}
				to = maxTime(to, run.StartedAt)
			}
		}
		byHost[d.Host.Hostname] = append(byHost[d.Host.Hostname], span{d.StartedAt, to, d.Path})
	}
	for h, all := range byHost {
		slices.SortFunc(all, func(a, b span) int { return a.from.Compare(b.from) })
		for i := 1; i < len(all); i++ {
			if !all[i].from.After(all[i-1].to) {
				return inputerr.New("%s and %s: two documents of host %q overlap in time (%s to %s, and from %s): a document saved twice, or a clock that jumped",
					all[i-1].path, all[i].path, h, all[i-1].from.Format(time.RFC3339), all[i-1].to.Format(time.RFC3339), all[i].from.Format(time.RFC3339))
			}
		}
	}
	return nil
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// build makes a series of every point and metric measured in two
// sessions or more, in the order points are first found.
func build(docs []*document.Document, sess results.Sessions, o Options) ([]*Series, []string, error) {
	pts, err := results.Pool(docs, results.Options{})
	if err != nil {
		return nil, nil, inputerr.New("%v", err)
	}
	var out []*Series
	var notes []string
	for _, p := range pts {
		for _, m := range metricsOf(p, o.Metrics) {
			s := &Series{Point: results.Describe(p.Key, nil), Metric: m.Name, Unit: m.Unit, Latency: p.Latency, TCP: p.TCP, metric: m}
			for i := range o.Thresholds {
				if o.Thresholds[i].Metric.Name == m.Name {
					s.th = &o.Thresholds[i]
				}
			}
			s.Sessions = sessionsOf(p, m, sess)
			if len(s.Sessions) < 2 {
				notes = append(notes, fmt.Sprintf("%s %s: measured in %d session(s): no history", s.Point, m.Name, len(s.Sessions)))
				continue
			}
			out = append(out, s)
		}
	}
	return out, notes, nil
}

// metricsOf is the metrics followed for p: those asked that apply, or
// its headline one.
func metricsOf(p *results.Point, asked []metric.Metric) []metric.Metric {
	if len(asked) == 0 {
		if p.Latency {
			return []metric.Metric{metric.LatP50}
		}
		return []metric.Metric{metric.BW}
	}
	var out []metric.Metric
	for _, m := range asked {
		if m.AppliesTo(p.Latency) {
			out = append(out, m)
		}
	}
	return out
}

// sessionsOf is p's value in each session, in time order.
func sessionsOf(p *results.Point, m metric.Metric, sess results.Sessions) []Session {
	by := map[int]*Session{}
	vals := map[int][]float64{}
	for _, r := range p.Runs {
		v := m.Value(&r.Run.Figures)
		if v == nil || !(*v > 0) {
			continue
		}
		id := sess[r.Doc]
		s := by[id]
		if s == nil {
			s = &Session{Start: r.Doc.StartedAt, Label: r.Doc.Label, Host: r.Doc.Host.Hostname, Path: r.Doc.Path}
			by[id] = s
		}
		if r.Doc.StartedAt.Before(s.Start) {
			s.Start, s.Path = r.Doc.StartedAt, r.Doc.Path
		}
		vals[id] = append(vals[id], *v)
		s.Runs++
		if c := r.Run.Clean; c != nil && !*c {
			s.Unclean++
		}
	}
	out := make([]Session, 0, len(by))
	for id, s := range by {
		s.Value = compare.Median(vals[id])
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b Session) int { return a.Start.Compare(b.Start) })
	return out
}

// detect finds the series' steps (on the logs of its values, so that a
// step is a ratio) and judges them.
func (s *Series) detect(ctx context.Context, o Options) error {
	s.Needed = 2 * o.MinSegment
	if len(s.Sessions) < s.Needed {
		s.Outcome, s.Stop = OutcomeTooFew, 1
		s.Levels = levels(s.Sessions, nil)
		return nil
	}
	x := make([]float64, len(s.Sessions))
	for i, v := range s.Sessions {
		x[i] = math.Log(v.Value)
	}
	splits, stop, err := o.Detector.Find(ctx, x)
	if err != nil {
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("%s %s: %w", s.Point, s.Metric, err)
	}
	s.Stop = stop
	idx := make([]int, len(splits))
	for i, sp := range splits {
		idx[i] = sp.Index
	}
	s.Levels = levels(s.Sessions, idx)
	s.Outcome = OutcomeSteady
	for _, sp := range splits {
		before, after := s.Levels[sp.Index-1], s.Levels[sp.Index]
		st := Step{Index: sp.Index, At: s.Sessions[sp.Index].Start, Before: before, After: after,
			ChangePct: (after/before - 1) * 100, P: sp.P, Recent: sp.Index >= len(s.Sessions)-o.Recent}
		st.Regression = (st.ChangePct > 0) != s.metric.HigherIsBetter
		if s.th != nil && st.Regression {
			edge := s.th.EdgePct()
			st.Gated = st.ChangePct > edge
			if s.metric.HigherIsBetter {
				st.Gated = st.ChangePct < edge
			}
		}
		if st.Gated && st.Recent {
			s.Outcome = OutcomeRegression
		}
		s.Steps = append(s.Steps, st)
	}
	return nil
}

// levels is each session's segment level: the median of the values of
// the segment it falls in, the segments split at idx (sorted).
func levels(ss []Session, idx []int) []float64 {
	out := make([]float64, len(ss))
	edges := append(append([]int{0}, idx...), len(ss))
	for i := 0; i+1 < len(edges); i++ {
		var v []float64
		for _, s := range ss[edges[i]:edges[i+1]] {
			v = append(v, s.Value)
		}
		lv := compare.Median(v)
		for j := edges[i]; j < edges[i+1]; j++ {
			out[j] = lv
		}
	}
	return out
}

// outcome is the history's exit code and summary line.
func (r *Result) outcome() (int, string) {
	var reg, looked []string
	for _, s := range r.Series {
		switch s.Outcome {
		case OutcomeRegression:
			reg = append(reg, s.Point+" "+s.Metric)
			looked = append(looked, s.Point)
		case OutcomeSteady:
			looked = append(looked, s.Point)
		}
	}
	switch {
	case len(reg) > 0:
		return ExitRegression, fmt.Sprintf("history regression (exit %d): a regression beyond its threshold in the newest %d sessions: %s",
			ExitRegression, r.Settings.Recent, strings.Join(reg, "; "))
	case len(looked) == 0:
		return ExitTooFew, fmt.Sprintf("history undecided (exit %d): no series has the %d sessions the detector needs to look (--min-segment %d on each side of a step); not \"steady\"",
			ExitTooFew, 2*r.Settings.MinSegment, r.Settings.MinSegment)
	}
	return ExitSteady, fmt.Sprintf("history steady (exit %d): %d of %d series looked at, no regression beyond its threshold in the newest %d sessions",
		ExitSteady, len(looked), len(r.Series), r.Settings.Recent)
}
