package compare

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// Threshold is the largest regression a CI gate tolerates for one metric.
type Threshold struct {
	// Metric is the metric gated.
	Metric metric.Metric
	// LimitPct is the tolerated regression in percent, not negative: 5 for
	// "lat.p50>+5%" (an increase), 3 for "bw<-3%" (a decrease).
	LimitPct float64
}

// DefaultThresholdSpec is the gate's default, in [ParseThresholds] syntax.
// It suits a CI gate on soft-RoCE in shared virtual machines: the median
// latency may grow by 5% and p99 by 10% (tails move more than medians),
// bandwidth and message rate may drop by 3% (averages over many messages
// are steadier). The p99.9 latency and the CPU costs are not gated by
// default: we judge them the noisiest figures on shared machines, so a
// gate on them would mostly report noise. They still get a verdict, and a
// caller can gate them explicitly.
const DefaultThresholdSpec = "lat.p50>+5%,lat.p99>+10%,bw<-3%,msgrate<-3%"

// EdgePct returns the signed change at which a regression starts to exceed
// the threshold: +5 for "lat.p50>+5%", -3 for "bw<-3%".
func (t Threshold) EdgePct() float64 {
	if t.Metric.HigherIsBetter {
		return -t.LimitPct
	}
	return t.LimitPct
}

// String returns the threshold in [ParseThresholds] syntax.
func (t Threshold) String() string {
	if t.Metric.HigherIsBetter {
		return fmt.Sprintf("%s<-%g%%", t.Metric.Name, t.LimitPct)
	}
	return fmt.Sprintf("%s>+%g%%", t.Metric.Name, t.LimitPct)
}

var signedNumber = regexp.MustCompile(`^[+-][0-9]+(\.[0-9]+)?$`)

// ParseThresholds parses a comma-separated list of thresholds such as
// "lat.p50>+5%,lat.p99>+10%,bw<-3%". Each item is a known metric, then ">"
// and a signed increase for a lower-is-better metric (latency, CPU cost)
// or "<" and a signed decrease for a higher-is-better one (bandwidth,
// message rate), then "%". Spaces around items and operators are allowed;
// a metric may appear once.
func ParseThresholds(spec string) ([]Threshold, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, errors.New("empty threshold list: want items such as lat.p50>+5%,bw<-3%")
	}
	var out []Threshold
	for i, raw := range strings.Split(spec, ",") {
		item := strings.TrimSpace(raw)
		if item == "" {
			return nil, fmt.Errorf("threshold list %q: item %d is empty", spec, i+1)
		}
		t, err := parseThreshold(item)
		if err != nil {
			return nil, fmt.Errorf("threshold %q: %w", item, err)
		}
		for _, prev := range out {
			if prev.Metric.Name == t.Metric.Name {
				return nil, fmt.Errorf("threshold %q: metric %s already has a threshold (%s)", item, t.Metric.Name, prev)
			}
		}
		out = append(out, t)
	}
	return out, nil
}

func parseThreshold(item string) (Threshold, error) {
	op := strings.IndexAny(item, "<>")
	if op < 0 {
		return Threshold{}, errors.New("want METRIC>+N% or METRIC<-N%, such as lat.p50>+5% or bw<-3%")
	}
	m, err := metric.Lookup(strings.TrimSpace(item[:op]))
	if err != nil {
		return Threshold{}, err
	}
	example, want := "+5%", m.Name+">+N%"
	if m.HigherIsBetter {
		example, want = "-3%", m.Name+"<-N%"
	}
	val := strings.TrimSpace(item[op+1:])
	num, ok := strings.CutSuffix(val, "%")
	if !ok {
		return Threshold{}, fmt.Errorf("want a percentage such as %s", example)
	}
	if !signedNumber.MatchString(num) {
		return Threshold{}, fmt.Errorf("%q is not a signed number: want a percentage such as %s", num, example)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return Threshold{}, fmt.Errorf("%q: want a percentage such as %s", num, example)
	}
	increase := item[op] == '>' && num[0] == '+'
	decrease := item[op] == '<' && num[0] == '-'
	switch {
	case !m.HigherIsBetter && !increase:
		return Threshold{}, fmt.Errorf("%s is lower-is-better, so a regression is an increase: want %s", m.Name, want)
	case m.HigherIsBetter && !decrease:
		return Threshold{}, fmt.Errorf("%s is higher-is-better, so a regression is a decrease: want %s", m.Name, want)
	case decrease && v <= -100:
		return Threshold{}, fmt.Errorf("a decrease of %g%% or more cannot happen: want a limit below 100%%", -v)
	}
	return Threshold{Metric: m, LimitPct: math.Abs(v)}, nil
}
