package history

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/display"
	"github.com/rdma-bench/rdma-bench/pkg/plot"
	"github.com/rdma-bench/rdma-bench/pkg/results"
)

// Formats are the outputs of a history.
var Formats = []string{"table", "json"}

// Write writes the history in format: "table" (for people; the summary
// line last) or "json" (the Result).
func Write(w io.Writer, r *Result, format string) error {
	switch format {
	case "json":
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return fmt.Errorf("encoding the history: %w", err)
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case "table":
		return writeTable(w, r)
	}
	return fmt.Errorf("-o %s: want %s", format, strings.Join(Formats, " or "))
}

// dateFormat writes a session's start in tables and on chart axes.
const dateFormat = "2006-01-02 15:04"

func writeTable(w io.Writer, r *Result) error {
	var b strings.Builder
	s := r.Settings
	fmt.Fprintf(&b, "history: %d sessions, %d series; change points by %s at alpha %g (%d permutations at most), "+
		"at least %d sessions each side of a step; thresholds %s; a regression beyond its threshold starting in the newest %d sessions fails\n\n",
		r.Sessions, len(r.Series), s.Method, s.Alpha, s.Permutations, s.MinSegment, orNone(s.Thresholds), s.Recent)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write history: %w", err)
	}
	tbl := display.NewTable(w, false, "point", "metric", "sessions", "from", "to", "level now", "steps", "outcome")
	for _, se := range r.Series {
		last := se.Sessions[len(se.Sessions)-1]
		cells := []string{se.Point, se.Metric + " (" + se.Unit + ")", fmt.Sprint(len(se.Sessions)), se.Sessions[0].Start.Format(dateFormat),
			last.Start.Format(dateFormat), display.Value(se.Levels[len(se.Levels)-1]), fmt.Sprint(len(se.Steps)), se.Outcome}
		if err := tbl.Append(cells); err != nil {
			return fmt.Errorf("write history: %w", err)
		}
	}
	if err := tbl.Render(); err != nil {
		return fmt.Errorf("write history: %w", err)
	}
	b.Reset()
	b.WriteString("\n")
	for _, se := range r.Series {
		for _, st := range se.Steps {
			fmt.Fprintf(&b, "%s %s: %s\n", se.Point, se.Metric, stepText(se, st))
		}
		if n := se.caveat(); n != "" {
			fmt.Fprintf(&b, "%s %s: %s\n", se.Point, se.Metric, n)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	b.WriteString(r.Summary + "\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write history: %w", err)
	}
	return nil
}

// stepText says what a step is: where, from what to what, how sure, and
// whether it fails the history.
func stepText(se *Series, st Step) string {
	t := fmt.Sprintf("step at session %d (%s): %s -> %s %s (%s), p=%.3g", st.Index+1, st.At.Format(dateFormat),
		display.Value(st.Before), display.Value(st.After), se.Unit, display.Pct(st.ChangePct), st.P)
	switch {
	case !st.Regression:
		return t + ": an improvement"
	case st.Gated && st.Recent:
		return t + ": a regression beyond " + se.th.String() + ", in the newest sessions: fails"
	case st.Gated:
		return t + ": a regression beyond " + se.th.String() + ", older than the newest sessions: reported"
	case se.th != nil:
		return t + ": a regression within " + se.th.String()
	}
	return t + ": a regression (not gated)"
}

// caveat says what a series' reader must know beyond its steps: too few
// sessions to look, or sessions whose runs were not clean.
func (se *Series) caveat() string {
	var parts []string
	if se.Outcome == OutcomeTooFew {
		parts = append(parts, fmt.Sprintf("%d sessions: too few to look for a step (the detector needs %d or more), not \"steady\"",
			len(se.Sessions), se.Needed))
	}
	unclean, runs := 0, 0
	for _, s := range se.Sessions {
		unclean += s.Unclean
		runs += s.Runs
	}
	if unclean > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d runs not clean (the port counters moved: retransmissions)", unclean, runs))
	}
	return strings.Join(parts, "; ")
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ",")
}

// Charts draws each series: its sessions' values and the levels of its
// segments, whose steps are the change points.
func Charts(r *Result, caption plot.Caption) ([]results.NamedChart, error) {
	var out []results.NamedChart
	for _, se := range r.Series {
		labels := make([]string, len(se.Sessions))
		vals, lv := make([]plot.TrendValue, len(se.Sessions)), make([]plot.TrendValue, len(se.Sessions))
		for i, s := range se.Sessions {
			labels[i] = s.Start.Format(dateFormat)
			vals[i] = plot.TrendValue{Median: s.Value, Lo: math.NaN(), Hi: math.NaN()}
			lv[i] = plot.TrendValue{Median: se.Levels[i], Lo: math.NaN(), Hi: math.NaN()}
		}
		fam := plot.RDMA
		if se.TCP {
			fam = plot.TCP
		}
		title := fmt.Sprintf("%s %s across sessions", se.Point, se.Metric)
		if len(se.Steps) > 0 {
			var at []string
			for _, st := range se.Steps {
				at = append(at, fmt.Sprintf("%s (%s)", st.At.Format(dateFormat), display.Pct(st.ChangePct)))
			}
			title += ": steps at " + strings.Join(at, ", ")
		}
		c := caption
		c.Extra = append(append([][2]string(nil), c.Extra...), [2]string{"change points", fmt.Sprintf("E-divisive means, p <= %g", r.Settings.Alpha)})
		ch, err := plot.Trend(title, se.Metric+" ("+se.Unit+")", labels, []plot.TrendSeries{
			{Name: "session median", Family: fam, Values: vals},
			{Name: "level (segments between steps)", Family: plot.TCP, Values: lv},
		}, c)
		if err != nil {
			return nil, err
		}
		out = append(out, results.NamedChart{Name: chartName(se), Chart: ch})
	}
	return out, nil
}

// chartName is a series' file name: history_write_lat_RC_poll_64B_lat.p50.
func chartName(se *Series) string {
	return "history_" + results.FileName(se.Point) + "_" + se.Metric
}
