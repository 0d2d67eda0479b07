package fabric

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// Direction says which way a metric gets worse.
type Direction int

// Directions of a metric.
const (
	LowerIsBetter  Direction = 1 // latencies: higher is worse
	HigherIsBetter Direction = 2 // bandwidths, message rates: lower is worse
)

// MetricDirection is a figure's direction, from package metric's table:
// the part of its name after the workload ("p50_us" of
// "write_lat.p50_us") is the figure's key there.
func MetricDirection(name string) (Direction, error) {
	_, key, found := strings.Cut(name, ".")
	if !found {
		key = name
	}
	m, ok := metric.ByKey(key)
	if !ok {
		return 0, fmt.Errorf("metric %q: not a figure of rdma-bench: want WORKLOAD.KEY with KEY one of %s", name, strings.Join(metricKeys(), ", "))
	}
	if m.HigherIsBetter {
		return HigherIsBetter, nil
	}
	return LowerIsBetter, nil
}

func metricKeys() []string {
	var keys []string
	for _, m := range metric.All() {
		keys = append(keys, m.Key)
	}
	return keys
}

// DefaultThresholdPct is the outlier threshold when none is given.
const DefaultThresholdPct = 20

// OutlierOptions say which pairs are suspects.
type OutlierOptions struct {
	// ThresholdPct: a pair is a suspect when its figure is worse than the
	// median of all measured pairs by more than this percentage. Zero
	// means DefaultThresholdPct.
	ThresholdPct float64
	// Metrics are the metrics checked; nil means every metric of the
	// document.
	Metrics []string
	// Directions override MetricDirection for the metrics they name.
	Directions map[string]Direction
}

// threshold is opts.ThresholdPct, or the default for zero.
func (o OutlierOptions) threshold() float64 {
	if o.ThresholdPct == 0 {
		return DefaultThresholdPct
	}
	return o.ThresholdPct
}

// direction is metric's direction: opts.Directions', else its unit's.
func (o OutlierOptions) direction(metric string) (Direction, error) {
	if dir, ok := o.Directions[metric]; ok {
		return dir, nil
	}
	return MetricDirection(metric)
}

// check says what is wrong with the options, before anything is measured.
func (o OutlierOptions) check() error {
	if t := o.threshold(); !(t > 0) || math.IsInf(t, 0) {
		return fmt.Errorf("outlier threshold %v%%: want a percentage above 0 such as 20", t)
	}
	for _, m := range o.Metrics {
		if _, err := o.direction(m); err != nil {
			return err
		}
	}
	return nil
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

// Suspect is a pair whose figure in the sweep, one measurement, is worse
// than its metric's median by more than the threshold. It is an outlier
// only when its re-measurement beside the reference pair says so (see
// Recheck).
type Suspect struct {
	Metric string   `json:"metric"`
	Src    Endpoint `json:"src"`
	Dst    Endpoint `json:"dst"`
	// Value is the pair's figure in the sweep, Median the median of its
	// metric over the sweep's pairs.
	Value  float64 `json:"value"`
	Median float64 `json:"median"`
	// WorsePct is how much worse than the median Value is, in percent.
	WorsePct float64 `json:"worse_pct"`
	// Reference is the pair the suspect is re-measured beside: of the
	// metric's pairs that are no suspect, the one nearest their median.
	Reference Reference `json:"reference"`
	// Recheck is the re-measurement and its decision; nil when the
	// suspect was not re-measured (a sweep stopped before).
	Recheck *Recheck `json:"recheck,omitempty"`
}

// Reference is the pair a suspect is re-measured beside.
type Reference struct {
	Src Endpoint `json:"src"`
	Dst Endpoint `json:"dst"`
	// Value is its figure in the sweep.
	Value float64 `json:"value"`
}

// FindSuspects returns the pairs worse than their metric's median by more
// than opts' threshold in the sweep, each with its reference pair, by
// metric then worst first. A metric whose median is not above zero has no
// suspects (a relative threshold means nothing).
func FindSuspects(doc *Document, opts OutlierOptions) ([]Suspect, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	metrics := opts.Metrics
	if metrics == nil {
		metrics = doc.Metrics()
	}
	var out []Suspect
	for _, metric := range metrics {
		dir, err := opts.direction(metric)
		if err != nil {
			return nil, err
		}
		s, err := suspectsOf(doc, metric, dir, opts.threshold())
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	slices.SortStableFunc(out, func(a, b Suspect) int {
		if c := strings.Compare(a.Metric, b.Metric); c != 0 {
			return c
		}
		return cmp.Compare(b.WorsePct, a.WorsePct)
	})
	return out, nil
}

// suspectsOf are metric's suspects, each with the reference pair: of the
// pairs that are no suspect, the one nearest their median, the first in
// schedule order on a tie. The median of the clean pairs, not of all:
// when half the pairs were slow in the sweep (two pairs a round on too
// few cores), the median of all lies between the slow and the fast, and
// the clean pair nearest it would be the slowest of the fast ones. It
// reads the pairs three times, keeping one figure a pair at a time, not
// the pairs.
func suspectsOf(doc *Document, metric string, dir Direction, threshold float64) ([]Suspect, error) {
	var vals []float64
	err := doc.EachPair(func(p *PairOutcome) error {
		if v, ok := p.Figures.Get(metric); ok && p.OK() {
			vals = append(vals, v)
		}
		return nil
	})
	med := median(vals)
	if err != nil || !(med > 0) {
		return nil, err
	}
	worse := func(v float64) float64 {
		w := (v - med) / med * 100
		if dir == HigherIsBetter {
			w = -w
		}
		return w
	}
	var out []Suspect
	clean := vals[:0]
	err = doc.EachPair(func(p *PairOutcome) error {
		v, ok := p.Figures.Get(metric)
		switch {
		case !ok || !p.OK():
		case worse(v) > threshold:
			out = append(out, Suspect{Metric: metric, Src: doc.endpoint(p.Src), Dst: doc.endpoint(p.Dst),
				Value: v, Median: med, WorsePct: worse(v)})
		default:
			clean = append(clean, v)
		}
		return nil
	})
	if err != nil || len(out) == 0 { // with a suspect, some pair is clean: the one at (or better than) the median
		return out, err
	}
	cleanMed := median(clean)
	var ref Reference
	best := math.Inf(1)
	err = doc.EachPair(func(p *PairOutcome) error {
		v, ok := p.Figures.Get(metric)
		if ok && p.OK() && !(worse(v) > threshold) {
			if d := math.Abs(math.Log(v / cleanMed)); d < best {
				best, ref = d, Reference{Src: doc.endpoint(p.Src), Dst: doc.endpoint(p.Dst), Value: v}
			}
		}
		return nil
	})
	for i := range out {
		out[i].Reference = ref
	}
	return out, err
}

// ExitStatus is the process's exit status for a run: 1 when any pair
// failed (in the sweep or re-measured) or is a confirmed outlier (or there
// is no document, or its pair log could not be read back), else 0. A suspect cleared or left undecided by its
// re-measurement does not count.
func ExitStatus(doc *Document) int {
	if doc == nil || len(doc.Outliers()) > 0 || doc.FailedCount() > 0 || len(doc.FailedRechecks()) > 0 || doc.Err() != nil {
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
