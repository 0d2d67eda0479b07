package compare

import (
	"fmt"
	"math"

	"github.com/aclements/go-moremath/stats"
	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// Ways a row's change was estimated, as [Row.Method] names them.
const (
	// MethodRuns: every run taken as independent (Mann-Whitney and
	// Hodges-Lehmann over runs): the series has no sessions, or the lab
	// vouched that its sessions do not drift (a session noise of 0).
	MethodRuns = "runs"
	// MethodSessions: each session's median is one value, and the two
	// sides' sessions are compared with Student's t, so that the
	// sessions' own drift is in the interval.
	MethodSessions = "sessions"
	// MethodSessionNoise: the runs' interval widened by the lab's
	// between-session noise (Options.SessionNoisePct).
	MethodSessionNoise = "runs + session noise"
	// MethodOneSession: one session a side and no session noise given:
	// the drift between the two sessions cannot be told from a change.
	MethodOneSession = "one session a side"
)

// sessionHint says what would decide a comparison whose sessions are too
// few.
const sessionHint = "measure each side in at least 3 sessions (minutes apart, or on other days), " +
	"alternate A B A B with rdma-bench gate where the base can still run, or give --session-noise N% " +
	"from the lab's A/A history (rdma-bench history)"

// sessionMedians returns the log of each session's median, in the order
// the sessions first appear.
func sessionMedians(v []float64, sess []int) []float64 {
	var order []int
	by := map[int][]float64{}
	for i, x := range v {
		if _, ok := by[sess[i]]; !ok {
			order = append(order, sess[i])
		}
		by[sess[i]] = append(by[sess[i]], x)
	}
	out := make([]float64, len(order))
	for i, s := range order {
		out[i] = math.Log(Median(by[s]))
	}
	return out
}

func meanVar(x []float64) (mean, ss float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, ss
}

// sessionShift compares the sides' session medians (logs) with the
// two-sample t interval of pooled variance, df = kb + kn - 2 >= 1: the
// estimate, the interval at conf, the two-sided p-value and the pooled
// standard deviation of one session's median (in logs). ok is false when
// the sessions' medians do not vary at all (nothing to scale the interval
// by).
func sessionShift(b, n []float64, conf float64) (est, lo, hi, p, sd float64, ok bool) {
	mb, ssb := meanVar(b)
	mn, ssn := meanVar(n)
	df := float64(len(b) + len(n) - 2)
	sd = math.Sqrt((ssb + ssn) / df)
	if !(sd > 0) {
		return 0, 0, 0, 0, 0, false
	}
	est = mn - mb
	se := sd * math.Sqrt(1/float64(len(b))+1/float64(len(n)))
	t := stats.TDist{V: df}
	q := stats.InvCDF(t)(1 - (1-conf)/2)
	p = 2 * (1 - t.CDF(math.Abs(est/se)))
	return est, est - q*se, est + q*se, p, sd, true
}

// applySessions replaces the runs' change of r by the sessions' when the
// series has them (see [Compare]); it reports whether the row is then
// decided as usual (false: one session a side, inconclusive).
func applySessions(r *Row, s Series, o Options) bool {
	if s.BaseSessions == nil || s.NewSessions == nil {
		r.Method = MethodRuns
		return true
	}
	b, n := sessionMedians(s.Base, s.BaseSessions), sessionMedians(s.New, s.NewSessions)
	r.Base.Sessions, r.New.Sessions = len(b), len(n)
	r.SessionSpreadPct = math.NaN()
	if len(b)+len(n) >= 3 {
		if est, lo, hi, p, sd, ok := sessionShift(b, n, o.Confidence); ok {
			r.Method = MethodSessions
			r.ChangePct, r.ChangeLoPct, r.ChangeHiPct = logPct(est), logPct(lo), logPct(hi)
			r.ChangeConfidence, r.P, r.SessionSpreadPct = o.Confidence, p, logPct(sd)
			return true
		}
	}
	switch {
	case o.SessionNoisePct == 0:
		r.Method = MethodRuns
	case o.SessionNoisePct > 0:
		r.Method = MethodSessionNoise
		widen(r, math.Log1p(o.SessionNoisePct/100)*math.Sqrt(1/float64(len(b))+1/float64(len(n))), o.Confidence)
	case len(b)+len(n) >= 3: // sessions whose medians are all equal: nothing to go on but the runs
		r.Method = MethodRuns
	default:
		r.Method = MethodOneSession
		return false
	}
	return true
}

// widen adds a session term of standard deviation sd (in logs) to the
// runs' interval of r: each half-width becomes sqrt(h^2 + (z sd)^2), and
// p the normal's for the estimate over the combined standard error.
func widen(r *Row, sd, conf float64) {
	z := stats.StdNormal.InvCDF(1 - (1-conf)/2)
	est := math.Log1p(r.ChangePct / 100)
	lo, hi := est-math.Log1p(r.ChangeLoPct/100), math.Log1p(r.ChangeHiPct/100)-est
	lo, hi = math.Hypot(lo, z*sd), math.Hypot(hi, z*sd)
	r.ChangeLoPct, r.ChangeHiPct = logPct(est-lo), logPct(est+hi)
	if se := (lo + hi) / 2 / z; se > 0 && !math.IsInf(se, 0) {
		r.P = 2 * (1 - stats.StdNormal.CDF(math.Abs(est)/se))
	}
}

// oneSessionReason is the reason of a row whose sides are one session
// each.
func oneSessionReason(r *Row) string {
	return fmt.Sprintf("one session a side: the change %s %s could be the drift between the two sessions, which one "+
		"session a side cannot measure; %s", display.Pct(r.ChangePct), display.Interval(r.ChangeLoPct, r.ChangeHiPct), sessionHint)
}
