package fabric

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Direction says which way a metric gets worse.
type Direction int

// Directions of a metric.
const (
	LowerIsBetter  Direction = 1 // latencies: higher is worse
	HigherIsBetter Direction = 2 // bandwidths, message rates: lower is worse
)

// Unit suffixes MetricDirection knows: the part of a metric's name after
// its last '_'.
var (
	lowerUnits  = []string{"ns", "us", "ms", "s"}
	higherUnits = []string{"gbps", "mbps", "kbps", "bps", "gibps", "mibps", "mpps", "kpps", "pps"}
)

// MetricDirection tells a metric's direction from its unit suffix:
// "lat.p50_us" is a time (lower is better), "bw_gbps" a rate (higher is
// better).
func MetricDirection(metric string) (Direction, error) {
	i := strings.LastIndexByte(metric, '_')
	unit := strings.ToLower(metric[i+1:])
	switch {
	case i >= 0 && slices.Contains(lowerUnits, unit):
		return LowerIsBetter, nil
	case i >= 0 && slices.Contains(higherUnits, unit):
		return HigherIsBetter, nil
	}
	return 0, fmt.Errorf("metric %q: no known unit suffix: want a time (_%s: lower is better) or a rate (_%s: higher is better)",
		metric, strings.Join(lowerUnits, ", _"), strings.Join(higherUnits, ", _"))
}

// OutlierOptions say what an outlier is.
type OutlierOptions struct {
	// ThresholdPct: a pair is an outlier when its figure is worse than
	// the median of all measured pairs by more than this percentage.
	ThresholdPct float64
	// Metrics are the metrics checked; nil means every metric of the
	// document.
	Metrics []string
	// Directions override MetricDirection for the metrics they name.
	Directions map[string]Direction
}

// Endpoint is one side of a pair as an outlier names it.
type Endpoint struct {
	Rank     int    `json:"rank"`
	Hostname string `json:"hostname"`
	Device   string `json:"device"`
	Port     int    `json:"port"`
}

// String is "rank 2 (host-c rxe0 port 1)".
func (e Endpoint) String() string {
	return fmt.Sprintf("rank %d (%s %s port %d)", e.Rank, orDash(e.Hostname), orDash(e.Device), e.Port)
}

// Outlier is a pair whose figure is worse than the fabric's median.
type Outlier struct {
	Metric string   `json:"metric"`
	Src    Endpoint `json:"src"`
	Dst    Endpoint `json:"dst"`
	Value  float64  `json:"value"`
	Median float64  `json:"median"`
	// WorsePct is how much worse than the median Value is, in percent.
	WorsePct float64 `json:"worse_pct"`
}

// FindOutliers returns the pairs worse than their metric's median by more
// than opts.ThresholdPct, by metric then worst first. A metric whose median
// is not above zero has no outliers (a relative threshold means nothing).
func FindOutliers(doc *Document, opts OutlierOptions) ([]Outlier, error) {
	if !(opts.ThresholdPct > 0) || math.IsInf(opts.ThresholdPct, 0) {
		return nil, fmt.Errorf("outlier threshold %v%%: want a percentage above 0 such as 20", opts.ThresholdPct)
	}
	metrics := opts.Metrics
	if metrics == nil {
		metrics = doc.Metrics()
	}
	var out []Outlier
	for _, metric := range metrics {
		dir, ok := opts.Directions[metric]
		if !ok {
			var err error
			if dir, err = MetricDirection(metric); err != nil {
				return nil, err
			}
		}
		var vals []float64
		for i := range doc.Pairs {
			if v, ok := doc.Pairs[i].Figures.Get(metric); ok && doc.Pairs[i].OK() {
				vals = append(vals, v)
			}
		}
		med := median(vals)
		if !(med > 0) {
			continue
		}
		for i := range doc.Pairs {
			p := &doc.Pairs[i]
			v, ok := p.Figures.Get(metric)
			if !ok || !p.OK() {
				continue
			}
			worse := (v - med) / med * 100
			if dir == HigherIsBetter {
				worse = -worse
			}
			if worse > opts.ThresholdPct {
				out = append(out, Outlier{Metric: metric, Src: doc.endpoint(p.Src), Dst: doc.endpoint(p.Dst),
					Value: v, Median: med, WorsePct: worse})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Outlier) int {
		if c := strings.Compare(a.Metric, b.Metric); c != 0 {
			return c
		}
		return cmp.Compare(b.WorsePct, a.WorsePct)
	})
	return out, nil
}

// ExitStatus is the process's exit status for a run: 1 when any pair
// failed or is an outlier (or there is no document), else 0.
func ExitStatus(doc *Document, outliers []Outlier) int {
	if doc == nil || len(outliers) > 0 || len(doc.Failed()) > 0 {
		return 1
	}
	return 0
}

func (d *Document) endpoint(rank int) Endpoint {
	if rank < 0 || rank >= len(d.Members) {
		return Endpoint{Rank: rank}
	}
	m := d.Members[rank]
	return Endpoint{Rank: rank, Hostname: m.Hostname, Device: m.Device, Port: m.Port}
}

// median is the middle value (the mean of the two middle ones for an even
// count); NaN for none.
func median(vals []float64) float64 {
	if len(vals) == 0 {
		return math.NaN()
	}
	s := slices.Clone(vals)
	slices.Sort(s)
	h := len(s) / 2
	if len(s)%2 == 1 {
		return s[h]
	}
	return (s[h-1] + s[h]) / 2
}
