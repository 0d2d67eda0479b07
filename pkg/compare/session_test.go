package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// sessions returns k sessions of n runs each: session i's runs spread
// +/-1% around centre x (1 + drift[i]/100), and the session of each value.
func sessions(centre float64, drift []float64, n int) (v []float64, ids []int) {
	for i, d := range drift {
		for _, x := range spread(centre*(1+d/100), 1, n) {
			v = append(v, x)
			ids = append(ids, i)
		}
	}
	return v, ids
}

// TestOneSessionASide: one session a side decides nothing, however far
// apart (the drift between them is not measured), in the verdict and the
// gate, and says what would decide it.
func TestOneSessionASide(t *testing.T) {
	b, bs := sessions(10, []float64{0}, 5)
	n, ns := sessions(10, []float64{13}, 5) // the A/A read_lat: +13.4%
	s := Series{Point: "read_lat 64 B", Metric: metric.LatP50, Base: b, New: n, BaseSessions: bs, NewSessions: ns}
	r := mustCompare(t, s)
	if r.Verdict != Inconclusive || r.Method != MethodOneSession || !strings.Contains(r.Reason, "one session a side") ||
		!strings.Contains(r.Hint, "--session-noise") || r.Base.Sessions != 1 || r.New.Sessions != 1 {
		t.Fatalf("one session a side, +13%%: %s (%s), %q", r.Verdict, r.Method, r.Reason)
	}
	th, _ := ParseThresholds("lat.p50>+5%")
	if g := Gate([]Row{r}, th, false); g.Rows[0].Outcome != OutcomeInconclusive || g.ExitCode() != 3 {
		t.Errorf("gate of one session a side: %s, exit %d; want inconclusive, 3", g.Rows[0].Outcome, g.ExitCode())
	}
	n, ns = sessions(10, []float64{0.5}, 5)
	s.New, s.NewSessions = n, ns
	if g := Gate([]Row{mustCompare(t, s)}, th, false); g.Rows[0].Outcome != OutcomeInconclusive {
		t.Errorf("one session a side, +0.5%%: %s; want inconclusive, not pass", g.Rows[0].Outcome)
	}
	// --session-noise 0: the lab vouches that sessions do not drift; the
	// runs decide, as without sessions.
	o := DefaultOptions()
	o.SessionNoisePct = 0
	n, ns = sessions(10, []float64{13}, 5)
	s.New, s.NewSessions = n, ns
	if r, err := Compare(s, o); err != nil || r.Verdict != Slower || r.Method != MethodRuns {
		t.Errorf("session noise 0: %s (%s), %v; want slower over runs", r.Verdict, r.Method, err)
	}
	// A session noise of 8%: the interval widens by the drift two
	// sessions can show; +13% is then not certain.
	o.SessionNoisePct = 8
	r, err := Compare(s, o)
	if err != nil || r.Method != MethodSessionNoise || r.Verdict == Slower || !(r.ChangeLoPct < 5) {
		t.Errorf("session noise 8%%: %s (%s) %g..%g, %v; want a wider interval, not slower", r.Verdict, r.Method, r.ChangeLoPct, r.ChangeHiPct, err)
	}
}

// TestSessionsDecide: with sessions enough, their spread is the noise. An
// A/A pair of sides whose sessions drift 3% apart is not slower, though
// the runs alone would say so; a 10% slower session against a base of
// three steady ones is.
func TestSessionsDecide(t *testing.T) {
	// Drawn from the same sessions' spread, the new side's three happened
	// to land high: +3% on average.
	b, bs := sessions(10, []float64{-2, -1, 0}, 5)
	n, ns := sessions(10, []float64{2, 3, 1}, 5)
	s := Series{Point: "write_lat 64 B", Metric: metric.LatP50, Base: b, New: n, BaseSessions: bs, NewSessions: ns}
	r := mustCompare(t, s)
	if r.Method != MethodSessions || r.Verdict == Slower || r.Base.Sessions != 3 || !(r.SessionSpreadPct > 1) {
		t.Errorf("A/A in drifting sessions: %s (%s), spread %g%%; want not slower, over sessions", r.Verdict, r.Method, r.SessionSpreadPct)
	}
	s.BaseSessions, s.NewSessions = nil, nil
	if r := mustCompare(t, s); r.Verdict != Slower {
		t.Errorf("the same runs as independent: %s; want slower (the false alarm sessions avoid)", r.Verdict)
	}
	b, bs = sessions(10, []float64{0, 0.4, -0.3}, 5)
	n, ns = sessions(11, []float64{0}, 5)
	s = Series{Point: "write_lat 64 B", Metric: metric.LatP50, Base: b, New: n, BaseSessions: bs, NewSessions: ns}
	r = mustCompare(t, s)
	if r.Method != MethodSessions || r.Verdict != Slower || math.Abs(r.ChangePct-10) > 1 || !(r.P < 0.05) {
		t.Errorf("10%% slower against three steady sessions: %s (%s), %+.1f%% p=%g", r.Verdict, r.Method, r.ChangePct, r.P)
	}
	if strings.Contains(r.Hint, "--repeat") {
		t.Errorf("a session row's hint speaks of runs: %q", r.Hint)
	}
}

// TestSessionsBadInput: a session for every value, and a session noise in
// range.
func TestSessionsBadInput(t *testing.T) {
	s := Series{Point: "p", Metric: metric.LatP50, Base: []float64{1, 2}, New: []float64{1, 2}, BaseSessions: []int{0}, NewSessions: []int{0, 0}}
	if _, err := Compare(s, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "sessions for 1 and 2 values of 2 and 2") {
		t.Errorf("short sessions: %v", err)
	}
	o := DefaultOptions()
	for _, bad := range []float64{100, math.NaN()} {
		o.SessionNoisePct = bad
		if err := o.Validate(); err == nil {
			t.Errorf("session noise %g: no error", bad)
		}
	}
}
