package results

import (
	"slices"

	"github.com/rdma-bench/rdma-bench/pkg/compare"
	"github.com/rdma-bench/rdma-bench/pkg/document"
	"github.com/rdma-bench/rdma-bench/pkg/metric"
)

// Group is the documents of one label and their pooled points, one line
// (or bar) of every chart.
type Group struct {
	// Label is the documents' label; "" for documents without one.
	Label  string
	Docs   []*document.Document
	Points []*Point
}

// Groups splits documents by label, in the order of [OrderLabels] (by
// first started_at, unless order names them), documents without a label
// last, and pools each side's points with opt.
func Groups(docs []*document.Document, order []string, opt Options) ([]*Group, error) {
	labels, err := OrderLabels(docs, order)
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(docs, func(d *document.Document) bool { return d.Label == "" }) {
		labels = append(labels, "")
	}
	byLabel := map[string][]*document.Document{}
	for _, d := range docs {
		byLabel[d.Label] = append(byLabel[d.Label], d)
	}
	out := make([]*Group, 0, len(labels))
	for _, l := range labels {
		s := &Group{Label: l, Docs: byLabel[l]}
		if s.Points, err = Pool(s.Docs, opt); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Figure returns a metric's figure for the whole point, as charts show
// it: the result's merged figure when one document holds the point;
// over several documents, a latency percentile of their merged
// histograms when every one has a histogram, else the median of the
// documents' figures. ok is false when no document has the figure.
func (p *Point) Figure(metric string) (v float64, ok bool) {
	if len(p.Results) == 1 {
		f := Value(metric, &p.Results[0].Figures)
		if f == nil {
			return 0, false
		}
		return *f, true
	}
	if pct, isLat := latencyPercent[metric]; isLat {
		if h, err := p.Histogram(); err == nil && h != nil {
			return percentilesUS(h, []float64{pct})[0], true
		}
	}
	var vals []float64
	for _, r := range p.Results {
		if f := Value(metric, &r.Figures); f != nil {
			vals = append(vals, *f)
		}
	}
	if len(vals) == 0 {
		return 0, false
	}
	return compare.Median(vals), true
}

var latencyPercent = map[string]float64{
	metric.LatP50.Name: 50, metric.LatP99.Name: 99, metric.LatP99_9.Name: 99.9,
}
