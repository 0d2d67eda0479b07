package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
)

type jsonReport struct {
	Title      string          `json:"title"`
	Summary    string          `json:"summary"`
	BaseLabel  string          `json:"base_label"`
	NewLabel   string          `json:"new_label"`
	MetaDiff   []jsonMeta      `json:"meta_diff"`
	Settings   *jsonSettings   `json:"settings"`
	Thresholds []jsonThreshold `json:"thresholds"`
	Gate       jsonGate        `json:"gate"`
	Verdicts   jsonVerdicts    `json:"verdicts"`
	Unclean    jsonUnclean     `json:"unclean_runs"`
	Rows       []jsonRow       `json:"rows"`
	Notes      []string        `json:"notes"`
}

type jsonUnclean struct {
	Pooled  int `json:"pooled"`
	LeftOut int `json:"left_out"`
}

type jsonMeta struct {
	Field string `json:"field"`
	Base  string `json:"base"`
	New   string `json:"new"`
}

type jsonSettings struct {
	Confidence   float64 `json:"confidence"`
	Alpha        float64 `json:"alpha"`
	NoiseBandPct float64 `json:"noise_band_pct"`
	// SessionNoisePct is --session-noise; null when not given.
	SessionNoisePct *float64 `json:"session_noise_pct"`
}

type jsonThreshold struct {
	Spec    string  `json:"spec"`
	Metric  string  `json:"metric"`
	EdgePct float64 `json:"edge_pct"`
}

type jsonGate struct {
	Status       string `json:"status"`
	ExitCode     int    `json:"exit_code"`
	Strict       bool   `json:"strict"`
	Pass         int    `json:"pass"`
	Fail         int    `json:"fail"`
	Inconclusive int    `json:"inconclusive"`
	NotGated     int    `json:"not_gated"`
}

type jsonVerdicts struct {
	Slower       int `json:"slower"`
	Faster       int `json:"faster"`
	Same         int `json:"same"`
	Inconclusive int `json:"inconclusive"`
}

type jsonSide struct {
	Median       float64  `json:"median"`
	CILo         *float64 `json:"ci_lo"`
	CIHi         *float64 `json:"ci_hi"`
	CIConfidence float64  `json:"ci_confidence"`
	N            int      `json:"n"`
	Sessions     int      `json:"sessions"`
	Unclean      int      `json:"unclean"`
	LeftOut      int      `json:"unclean_left_out"`
	// Thin counts the runs whose percentile came from fewer samples than
	// it needs; Tick the latency runs whose median sat at the tick.
	Thin int `json:"thin_runs"`
	Tick int `json:"tick_runs"`
	// Partial counts the runs cut short among the values (--allow-partial).
	Partial int `json:"partial_runs"`
}

type jsonRow struct {
	Point            string      `json:"point"`
	Metric           string      `json:"metric"`
	Unit             string      `json:"unit"`
	HigherIsBetter   bool        `json:"higher_is_better"`
	Base             jsonSide    `json:"base"`
	New              jsonSide    `json:"new"`
	ChangePct        float64     `json:"change_pct"`
	ChangeLoPct      *float64    `json:"change_ci_lo_pct"`
	ChangeHiPct      *float64    `json:"change_ci_hi_pct"`
	ChangeConfidence float64     `json:"change_ci_confidence"`
	MedianChangePct  float64     `json:"median_change_pct"`
	Method           string      `json:"method"`
	SessionSpreadPct *float64    `json:"session_spread_pct"`
	PValue           float64     `json:"p_value"`
	Verdict          string      `json:"verdict"`
	Reason           string      `json:"reason"`
	RunsNeeded       int         `json:"runs_needed"`
	DetectableLoPct  *float64    `json:"detectable_lo_pct"`
	DetectableHiPct  *float64    `json:"detectable_hi_pct"`
	Hint             string      `json:"hint"`
	Warnings         []string    `json:"warnings"`
	Gate             jsonRowGate `json:"gate"`
}

type jsonRowGate struct {
	Outcome       string   `json:"outcome"`
	Threshold     *string  `json:"threshold"`
	Message       string   `json:"message"`
	RunsNeeded    int      `json:"runs_needed"`
	DetectablePct *float64 `json:"detectable_pct"`
	Hint          string   `json:"hint"`
}

// WriteJSON writes the report as one indented JSON object with stable keys:
// title, summary (the line every format ends with), base_label, new_label, meta_diff (the differing metadata),
// settings, thresholds, gate (status, exit_code and counts), verdicts
// (counts), unclean_runs (runs whose port counters moved, pooled or
// left_out, each point counted once), rows, in input order, and the notes
// every format shows. A side's unclean and unclean_left_out count its
// runs that were not clean among its n values, and left out of them. A row's medians and their interval
// bounds (base.median, base.ci_lo, ...) are in the unit its "unit" key
// names; keys ending in _pct are percentages of the base. change_pct is
// the Hodges-Lehmann estimate that every format shows, the centre of
// change_ci_lo_pct..change_ci_hi_pct; median_change_pct is the change of
// the medians, for reference. method says how the change was estimated
// (runs, sessions, runs + session noise, one session a side: [Row.Method]),
// a side's sessions how many it came in (0: not known), and
// session_spread_pct the sessions' spread (null unless over sessions). An
// unbounded interval end is null.
func WriteJSON(w io.Writer, r Comparison) error {
	g, v := r.Gate.Counts(), r.Verdicts()
	doc := jsonReport{
		Title: r.Title, Summary: r.Summary(), BaseLabel: r.BaseLabel, NewLabel: r.NewLabel,
		MetaDiff: []jsonMeta{}, Thresholds: []jsonThreshold{}, Rows: []jsonRow{},
		Gate: jsonGate{Status: r.Gate.Status(), ExitCode: r.Gate.ExitCode(), Strict: r.Gate.Strict,
			Pass: g.Pass, Fail: g.Fail, Inconclusive: g.Inconclusive, NotGated: g.NotGated},
		Verdicts: jsonVerdicts{Slower: v.Slower, Faster: v.Faster, Same: v.Same, Inconclusive: v.Inconclusive},
		Notes:    append([]string{}, r.Notes()...),
	}
	doc.Unclean.Pooled, doc.Unclean.LeftOut = uncleanTotals(r.Gate.Rows)
	for _, m := range r.Meta {
		doc.MetaDiff = append(doc.MetaDiff, jsonMeta(m))
	}
	for _, t := range r.Gate.Thresholds {
		doc.Thresholds = append(doc.Thresholds, jsonThreshold{Spec: t.String(), Metric: t.Metric.Name, EdgePct: t.EdgePct()})
	}
	for _, gr := range r.Gate.Rows {
		if doc.Settings == nil {
			o := gr.Options
			doc.Settings = &jsonSettings{Confidence: o.Confidence, Alpha: o.Alpha, NoiseBandPct: o.NoiseBandPct}
			if o.SessionNoisePct >= 0 {
				doc.Settings.SessionNoisePct = &o.SessionNoisePct
			}
		}
		doc.Rows = append(doc.Rows, toJSONRow(gr))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

func toJSONRow(g GateRow) jsonRow {
	row := jsonRow{
		Point: g.Point, Metric: g.Metric.Name, Unit: g.Metric.Unit, HigherIsBetter: g.Metric.HigherIsBetter,
		Base: toJSONSide(g.Base), New: toJSONSide(g.New),
		ChangePct: g.ChangePct, ChangeLoPct: finite(g.ChangeLoPct), ChangeHiPct: finite(g.ChangeHiPct),
		ChangeConfidence: g.ChangeConfidence, MedianChangePct: g.MedianChangePct, PValue: g.P,
		Method: g.Method, SessionSpreadPct: finite(g.SessionSpreadPct),
		Verdict: g.Verdict.String(), Reason: g.Reason, RunsNeeded: g.RunsNeeded, Hint: g.Hint,
		Warnings: append([]string{}, g.Warnings...),
		Gate: jsonRowGate{Outcome: g.Outcome.String(), Message: g.Message, RunsNeeded: g.GateRunsNeeded,
			Hint: g.GateHint},
	}
	if g.Verdict == Inconclusive && !math.IsInf(g.DetectableHiPct, 0) {
		row.DetectableLoPct, row.DetectableHiPct = finite(g.DetectableLoPct), finite(g.DetectableHiPct)
	}
	if g.Outcome == OutcomeInconclusive && !math.IsInf(g.GateDetectablePct, 0) && g.GateDetectablePct > -100 {
		row.Gate.DetectablePct = finite(g.GateDetectablePct)
	}
	if g.Threshold != nil {
		s := g.Threshold.String()
		row.Gate.Threshold = &s
	}
	return row
}

func toJSONSide(s Side) jsonSide {
	return jsonSide{Median: s.Median, CILo: finite(s.Lo), CIHi: finite(s.Hi), CIConfidence: s.Confidence, N: s.N, Sessions: s.Sessions,
		Unclean: s.Unclean, LeftOut: s.Dropped, Thin: s.Thin, Tick: s.Tick, Partial: s.Partial}
}

// finite returns a pointer to x, or nil (JSON null) when x is infinite or
// NaN, which JSON cannot carry.
func finite(x float64) *float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return &x
}
