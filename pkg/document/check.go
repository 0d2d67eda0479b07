package document

import (
	"fmt"
	"math"
	"slices"

	"github.com/rdma-bench/rdma-bench/pkg/display"
)

// checkResult refuses a result whose identity is missing or whose figures
// are not numbers a comparison can use.
func checkResult(r *Result) error {
	where := fmt.Sprintf("results[%d]", r.Index)
	if r.Workload == "" {
		return fmt.Errorf("%s.workload is empty: want a workload such as \"write_lat\"", where)
	}
	if r.SizeBytes < 1 {
		return fmt.Errorf("%s (%s).size_bytes is %d: want a positive number of bytes", where, r.Workload, r.SizeBytes)
	}
	where = fmt.Sprintf("%s (%s %s)", where, r.Workload, display.Size(r.SizeBytes))
	if err := checkStatus(r.Status); err != nil {
		return fmt.Errorf("%s.status: %w", where, err)
	}
	if err := checkFigures(&r.Figures); err != nil {
		return fmt.Errorf("%s.%w", where, err)
	}
	if r.Kind != KindLatency && r.Kind != KindBandwidth {
		return fmt.Errorf("%s.kind is %q: want %q or %q", where, r.Kind, KindLatency, KindBandwidth)
	}
	if err := checkMeasured(where, r.Kind, &r.Figures); err != nil {
		return err
	}
	if err := positive("bw_peak_gbps", r.BwPeakGbps); err != nil {
		return fmt.Errorf("%s.%w", where, err)
	}
	if r.Loaded != nil {
		if err := checkLoaded(r.Loaded); err != nil {
			return err
		}
	}
	if r.OpenLoop != nil {
		if err := checkOpenLoop(r.OpenLoop); err != nil {
			return fmt.Errorf("%s.%w", where, err)
		}
	}
	for i, x := range r.Expectations {
		if err := checkExpectation(x); err != nil {
			return fmt.Errorf("%s.expectations[%d] (%s): %w", where, i, x.Expect, err)
		}
	}
	for i, run := range r.Runs {
		if run == nil {
			return fmt.Errorf("%s.runs[%d] is null: want a run object", where, i)
		}
		if err := checkStatus(run.Status); err != nil {
			return fmt.Errorf("%s.runs[%d].status: %w", where, i, err)
		}
		if err := checkFigures(&run.Figures); err != nil {
			return fmt.Errorf("%s.runs[%d].%w", where, i, err)
		}
		if err := checkMeasured(fmt.Sprintf("%s.runs[%d]", where, i), r.Kind, &run.Figures); err != nil {
			return err
		}
	}
	return nil
}

func checkStatus(s string) error {
	switch s {
	case StatusOK, StatusPartial, StatusInsufficient, "":
		return nil
	}
	return fmt.Errorf("%q: want %q, %q or %q", s, StatusOK, StatusPartial, StatusInsufficient)
}

// checkFigures checks every figure that is not null: latencies, rates and
// bandwidths must be positive, CPU costs and the deviation not negative.
func checkFigures(f *Figures) error {
	if l := f.LatencyUS; l != nil {
		for _, v := range []struct {
			name string
			v    *float64
		}{{"min", l.Min}, {"p50", l.P50}, {"p90", l.P90}, {"p99", l.P99}, {"p99_9", l.P99_9},
			{"p99_99", l.P99_99}, {"max", l.Max}, {"mean", l.Mean}} {
			if err := positive("latency_us."+v.name, v.v); err != nil {
				return err
			}
		}
		if err := notNegative("latency_us.stdev", l.Stdev); err != nil {
			return err
		}
	}
	for _, v := range []struct {
		name string
		v    *float64
	}{{"bw_gbps", f.BwGbps}, {"bw_mibps", f.BwMiBps}, {"msg_rate_mpps", f.MsgRateMpps}} {
		if err := positive(v.name, v.v); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		name string
		c    Costs
	}{{"cpu_us_per_op", f.CPUUSPerOp}, {"cpu_s_per_gb", f.CPUSPerGB}} {
		for _, v := range []struct {
			name string
			v    *float64
		}{{"local", c.c.Local}, {"remote", c.c.Remote}, {"total", c.c.Total}} {
			if err := notNegative(c.name+"."+v.name, v.v); err != nil {
				return err
			}
		}
	}
	return nil
}

func positive(name string, v *float64) error {
	if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0) || *v <= 0) {
		return fmt.Errorf("%s is %v: want a positive number, or null when not measured", name, *v)
	}
	return nil
}

func notNegative(name string, v *float64) error {
	if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0) || *v < 0) {
		return fmt.Errorf("%s is %v: want a number not below 0, or null when not measured", name, *v)
	}
	return nil
}

// normalizeRuns gives a result from before the runs key one run made of
// its own figures.
func normalizeRuns(r *Result) {
	if len(r.Runs) > 0 {
		r.RunsRecorded = true
		for i, run := range r.Runs {
			if run.Run == 0 {
				run.Run = i + 1
			}
		}
		// A document from before the runs' samples key: the one run of a
		// result has the result's samples.
		if len(r.Runs) == 1 && r.Runs[0].Samples == 0 {
			r.Runs[0].Samples = r.Samples
		}
		return
	}
	r.Runs = []*Run{{Run: 1, Figures: r.Figures}}
}

// checkLoadCurve refuses a load curve without rates or whose knee is not
// one of them.
func checkLoadCurve(c *LoadCurve) error {
	if len(c.RatesOPS) == 0 {
		return fmt.Errorf("rates_ops is empty: want the curve's offered rates")
	}
	for _, r := range c.RatesOPS {
		if r < 1 {
			return fmt.Errorf("rates_ops holds %d: want offered rates of 1 operation a second or more", r)
		}
	}
	if c.KneeOPS != nil && !slices.Contains(c.RatesOPS, *c.KneeOPS) {
		return fmt.Errorf("knee_ops %d is not one of rates_ops %v: want one of them, or null", *c.KneeOPS, c.RatesOPS)
	}
	return nil
}

// checkOpenLoop refuses open-loop figures a chart cannot place.
func checkOpenLoop(o *OpenLoop) error {
	if o.RateOPS < 1 {
		return fmt.Errorf("open_loop.rate_ops is %d: want an offered rate of 1 operation a second or more", o.RateOPS)
	}
	return positive("open_loop.achieved_ops", o.AchievedOPS)
}

// checkExpectation refuses a verdict whose comparison cannot be read
// back.
func checkExpectation(x Expectation) error {
	if !slices.Contains([]string{">=", ">", "<=", "<"}, x.Op) {
		return fmt.Errorf("op %q: want >=, >, <= or <", x.Op)
	}
	if x.Metric == "" {
		return fmt.Errorf("metric is empty: want a metric such as \"bw\"")
	}
	if err := notNegative("limit", &x.Limit); err != nil {
		return err
	}
	return positive("value", x.Value)
}

// checkLoaded refuses loader figures a chart cannot place.
func checkLoaded(l *Loaded) error {
	if l.Loaders < 1 {
		return fmt.Errorf("loaded.loaders is %d: want 1 loader or more (a run without loaders has no loaded block)", l.Loaders)
	}
	if l.ElapsedS < 0 {
		return fmt.Errorf("loaded.elapsed_s is %v: want 0 or more", l.ElapsedS)
	}
	if l.BwGbps != nil && *l.BwGbps < 0 {
		return fmt.Errorf("loaded.bw_gbps is %v: want 0 or more, or null", *l.BwGbps)
	}
	return nil
}

// checkLoadedCurve refuses a loaded curve without levels or whose knee
// is not one of them.
func checkLoadedCurve(c *LoadedCurve) error {
	if len(c.Levels) == 0 {
		return fmt.Errorf("levels is empty: want the curve's loader counts")
	}
	if c.KneeLoaders != nil && !slices.Contains(c.Levels, *c.KneeLoaders) {
		return fmt.Errorf("knee_loaders %d is not one of levels %v: want one of them, or null", *c.KneeLoaders, c.Levels)
	}
	return nil
}
